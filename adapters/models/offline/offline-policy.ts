import type { Message, ToolCall, ToolDefinition } from '../../../src/models/conversation.js';
import { nextArithTurn, suitsArith } from './arith-skill.js';
import { viewConversation } from './conversation-view.js';
import { nextGenericTurn } from './generic-skill.js';
import type { OfflineTurnPlan } from './offline-action.js';
import { samplingNoise } from './sampling-noise.js';
import { nextWorkspaceTurn, suitsWorkspace } from './workspace-skill.js';

/**
 * The offline model's mind: a pure function from the conversation and the offered tools to the next
 * turn. It recognises an episode by the tools on offer and the wording of the prompt (the built-in
 * `arith` and `workspace` environments), never by anything outside the conversation; in any other
 * environment it tries each tool once with arguments made from its schema (`generic-skill.ts`), then
 * answers in text, so such a run ends when a tool finishes the episode or with stop reason `no_tool_calls`.
 */

/** Everything the policy decides from: the conversation, the offered tools and the sampling. */
export interface OfflinePolicyInput {
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  /** Sampling temperature; 0 means no slips at all (see `sampling-noise.ts` for the rule). */
  temperature: number;
  /** Seed of this turn's slips; the model draws one at random when the request gives none. */
  seed: number;
}

/** The decided turn, with tool calls ready to stream. */
export interface OfflineDecision {
  reasoning: string;
  text: string;
  toolCalls: ToolCall[];
}

/**
 * Decides the next turn. Deterministic: equal inputs give equal decisions. Tool call ids are
 * `call_<turn>_<position>`, unique within a conversation whose assistant turns all came from here.
 */
export function decideNextTurn(input: OfflinePolicyInput): OfflineDecision {
  const view = viewConversation(input.messages, input.tools);
  const noise = samplingNoise({ temperature: input.temperature, seed: input.seed, messages: input.messages });
  const plan: OfflineTurnPlan = suitsArith(view)
    ? nextArithTurn(view, noise)
    : suitsWorkspace(view)
      ? nextWorkspaceTurn(view, noise)
      : nextGenericTurn(view, input.tools);
  return {
    reasoning: plan.reasoning,
    text: plan.text,
    toolCalls: plan.toolCalls.map((call, position) => ({
      id: `call_${view.turn}_${position}`,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    })),
  };
}
