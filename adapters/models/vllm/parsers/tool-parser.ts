import type { ToolCall } from '../../../../src/models/conversation.js';
import type { ToolCallDeltaPart } from '../../../../src/models/model.js';

/** What a tool parser makes of the answer text: text the model wrote, or pieces and wholes of its tool calls. */
export type ToolParserOutput =
  | { type: 'text'; text: string }
  | ToolCallDeltaPart
  | { type: 'tool-call'; call: ToolCall };

/**
 * Finds the tool calls in a completion's answer text as it streams — what vLLM's tool parsers do on
 * its chat endpoint, done here because the bridge generates on `/v1/completions`. A call is announced
 * by a `tool-call-delta` once its name is known, its arguments stream as further `tool-call-delta`s,
 * and it comes whole as a `tool-call` once written. A call the model wrote badly still comes as a
 * call, with the text it wrote, so the episode answers it with a tool error as for any provider.
 */
export interface ToolParser {
  /** What one delta of answer text makes (text that may still be part of a tag is held back). */
  push(delta: string): ToolParserOutput[];
  /** What was held back, once the completion is over: a call the completion ended inside comes whole. */
  end(): ToolParserOutput[];
}

/** What a tool parser needs. */
export interface ToolParserOptions {
  /** A fresh id for each call (the model writes none). */
  newCallId(): string;
}
