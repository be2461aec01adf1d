import type { RunEvent } from '../../protocol/run-events.js';
import { formatSseFrame } from '../../sse/format-sse-frame.js';
import { agentEventChunk, chunksOf, errorBodyOf } from './openai-chunks.js';
import type { StreamFormat } from './stream-format.js';

/** The frame after the terminal event of every OpenAI-shaped stream: OpenAI SDKs stop reading at it. */
export const DONE_FRAME = formatSseFrame({ data: '[DONE]' });

/** Events whose whole content is in their chunks, so they do not ride along as agent events. */
const WHOLE_IN_CHUNKS = new Set<RunEvent['event']>(['message.delta', 'reasoning.delta', 'tool.arguments.delta']);

/**
 * `format=openai` (docs/protocol.md §3.2): only `chat.completion.chunk` frames, as unnamed `data:` lines
 * without ids, then `data: [DONE]` — what the official `openai` SDK's stream reader consumes as is.
 * A failed or cancelled run ends with an `{"error": {...}}` frame before `[DONE]`, which the SDK
 * raises as an `APIError`. With `?agent_events=1`, every event except the text, reasoning and
 * tool-argument deltas (whose whole content is already in a chunk) also rides along, first, as a
 * chunk with `choices: []` and an `agent_event` field holding the typed event. Resume with `?after=`.
 */
export const openaiFormat: StreamFormat = {
  variant: (options) => (options.agentEvents ? 'agent_events' : ''),
  frame({ event }, context) {
    let frames = '';
    if (context.options.agentEvents && !WHOLE_IN_CHUNKS.has(event.event)) {
      frames += formatSseFrame({ data: JSON.stringify(agentEventChunk(event, context)) });
    }
    for (const chunk of chunksOf(event, context)) frames += formatSseFrame({ data: JSON.stringify(chunk) });
    const error = errorBodyOf(event);
    if (error) frames += formatSseFrame({ data: JSON.stringify(error) });
    return frames;
  },
  end: () => DONE_FRAME,
};
