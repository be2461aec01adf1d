/**
 * What the offline policy decides for one model turn, before it is streamed: the reasoning, the
 * visible text and the tool calls (arguments as objects; the policy gives them ids and JSON text).
 */

/** A tool call as a skill plans it. */
export interface PlannedToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** One turn's decision. An empty `toolCalls` ends the episode (the run's stop reason `no_tool_calls`). */
export interface OfflineTurnPlan {
  reasoning: string;
  text: string;
  toolCalls: PlannedToolCall[];
}

/** A turn that answers in text only, used when the model cannot (or need not) go on. */
export function answerOnly(reasoning: string, text: string): OfflineTurnPlan {
  return { reasoning, text, toolCalls: [] };
}

/** A turn that makes one tool call. */
export function callTool(
  reasoning: string,
  text: string,
  name: string,
  args: Record<string, unknown>,
): OfflineTurnPlan {
  return { reasoning, text, toolCalls: [{ name, arguments: args }] };
}
