import { formatSseFrame } from '../../sse/format-sse-frame.js';
import { eventsFormat } from './events-format.js';
import { contentChunk } from './openai-chunks.js';
import { DONE_FRAME } from './openai-format.js';
import type { StreamFormat } from './stream-format.js';

/**
 * `format=combined` (docs/protocol.md §3.3): every event as in `format=events` — `id:`,
 * `event:` and the typed JSON — except the answer's text: a `message.delta` is an unnamed
 * `chat.completion.chunk` frame with the text in `delta.content` (as in `format=openai`, a blank line
 * between turns). `data: [DONE]` comes last. In a browser, `onmessage` gets the text and
 * `addEventListener('tool.started', …)` the lifecycle. Text frames carry `id:` too, so a browser
 * that reconnects with `Last-Event-ID` gets no text twice; reasoning stays typed
 * (`reasoning.delta`), so `onmessage` holds only the answer.
 */
export const combinedFormat: StreamFormat = {
  frame(entry, context) {
    const { event } = entry;
    if (event.event !== 'message.delta') return eventsFormat.frame(entry, context);
    return formatSseFrame({ id: event.seq, data: JSON.stringify(contentChunk(event, context)) });
  },
  end: () => DONE_FRAME,
};
