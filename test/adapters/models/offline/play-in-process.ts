import { z } from 'zod';
import type { Message, ToolDefinition as ModelToolDefinition, ToolCall } from '../../../../src/models/conversation.js';
import type { Model, ModelPart } from '../../../../src/models/model.js';
import { type EnvironmentDefinition, type ToolDefinition, ToolFailure } from '../../../../src/ors/environment.js';
import type { Sampling } from '../../../../src/protocol/run-request.js';
import { assistantFrom } from '../common/collect-parts.js';

/**
 * A minimal episode loop for tests: the environment runs in-process (no ORS server, no orchestrator),
 * the model streams turns, and tool calls are executed directly, with the same conventions the real
 * path uses — an input that fails the tool's schema or a `ToolFailure` becomes an error tool message,
 * tool output blocks become the tool message's text, `finished: true` ends the episode.
 */

export interface InProcessEpisode {
  messages: Message[];
  /** Every turn's parts, as the model streamed them. */
  turns: ModelPart[][];
  /** The reward of the last tool result that carried one. */
  reward: number | null;
  finished: boolean;
  stopReason: 'finished' | 'no_tool_calls' | 'max_turns';
  /** The final text answer, when one was asked for with `askAfterFinish`. */
  finalText?: string;
}

export interface PlayOptions {
  sampling?: Sampling;
  maxTurns?: number;
  /** After a finished episode, ask the model once more (as a chat caller would) and keep its text. */
  askAfterFinish?: boolean;
}

/** The model-facing definition of an environment tool, as the ORS server would advertise it. */
export function toolDefinitionOf(tool: ToolDefinition<unknown>): ModelToolDefinition {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.input
      ? (z.toJSONSchema(tool.input) as Record<string, unknown>)
      : { type: 'object', properties: {} },
  };
}

/** Collects one streamed turn. */
export async function collectTurn(
  model: Model,
  messages: Message[],
  tools: ModelToolDefinition[],
  sampling: Sampling,
  signal = new AbortController().signal,
): Promise<ModelPart[]> {
  const parts: ModelPart[] = [];
  for await (const part of model.stream({ messages, tools, sampling, signal })) parts.push(part);
  return parts;
}

/** Plays one episode of `task` in `environment` with `model`. */
export async function playInProcess<Task, State>(
  environment: EnvironmentDefinition<Task, State>,
  task: Task,
  model: Model,
  options: PlayOptions = {},
): Promise<InProcessEpisode> {
  const controller = new AbortController();
  const state = await environment.setup({ task, secrets: {}, sessionId: 'in-process' });
  try {
    const tools = [...environment.tools, ...(environment.taskTools?.(state) ?? [])] as Array<ToolDefinition<State>>;
    const definitions = tools.map((tool) => toolDefinitionOf(tool as ToolDefinition<unknown>));
    const prompt = await environment.prompt(state);
    const messages: Message[] = [
      {
        role: 'user',
        content: prompt.map((block) =>
          block.type === 'text'
            ? { type: 'text', text: block.text }
            : { type: 'image', mimeType: block.mimeType, data: block.data },
        ),
      },
    ];
    const episode: InProcessEpisode = { messages, turns: [], reward: null, finished: false, stopReason: 'max_turns' };
    const sampling = options.sampling ?? {};
    for (let turn = 1; turn <= (options.maxTurns ?? 20); turn++) {
      const parts = await collectTurn(model, messages, definitions, sampling);
      episode.turns.push(parts);
      const assistant = assistantFrom(parts);
      messages.push(assistant);
      const calls = assistant.toolCalls;
      if (calls.length === 0) {
        episode.stopReason = 'no_tool_calls';
        return episode;
      }
      for (const call of calls) {
        const result = await runTool(tools, call, state, controller.signal);
        messages.push({
          role: 'tool',
          toolCallId: call.id,
          toolName: call.name,
          content: [{ type: 'text', text: result.text }],
          isError: result.isError,
        });
        if (result.reward !== null) episode.reward = result.reward;
        if (result.finished) episode.finished = true;
      }
      if (episode.finished) {
        episode.stopReason = 'finished';
        if (options.askAfterFinish) {
          const parts = await collectTurn(model, messages, definitions, sampling);
          episode.turns.push(parts);
          episode.finalText = textOf(parts);
        }
        return episode;
      }
    }
    return episode;
  } finally {
    controller.abort();
    await environment.teardown?.(state);
  }
}

/** The text deltas of a turn, joined. */
export function textOf(parts: readonly ModelPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
}

async function runTool<State>(
  tools: ReadonlyArray<ToolDefinition<State>>,
  call: ToolCall,
  state: State,
  signal: AbortSignal,
): Promise<{ text: string; isError: boolean; reward: number | null; finished: boolean }> {
  const failed = (text: string) => ({ text, isError: true, reward: null, finished: false });
  const tool = tools.find((candidate) => candidate.name === call.name);
  if (!tool) return failed(`There is no tool named "${call.name}".`);
  let input: unknown = JSON.parse(call.arguments);
  if (tool.input) {
    const parsed = tool.input.safeParse(input);
    if (!parsed.success) return failed(`Invalid input for ${call.name}: ${parsed.error.message}`);
    input = parsed.data;
  }
  try {
    const output = await tool.run(input, { state, sessionId: 'in-process', signal });
    return {
      text: output.blocks
        .map((block) => (block.type === 'text' ? block.text : `[image: ${block.mimeType}]`))
        .join('\n'),
      isError: false,
      reward: output.reward ?? null,
      finished: output.finished ?? false,
    };
  } catch (error) {
    if (error instanceof ToolFailure) return failed(error.message);
    throw error;
  }
}
