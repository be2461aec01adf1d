import { formatSseFrame } from '../../sse/format-sse-frame.js';
import { aiSdkChunksOf } from './ai-sdk-chunks.js';
import { DONE_FRAME } from './openai-format.js';
import type { StreamFormat } from './stream-format.js';

/**
 * `format=ai-sdk`: the run as the Vercel AI SDK's UI message stream (see {@link aiSdkChunksOf}), one
 * unnamed `data:` frame per chunk as the AI SDK's own server writes them, `data: [DONE]` last. The
 * `x-vercel-ai-ui-message-stream: v1` header names the protocol version. The last frame of each
 * event's group carries `id:` = its seq, for readers that resume with `Last-Event-ID`; the AI SDK's
 * own readers ignore ids and resume by replaying the stream from the start (see docs/events.md).
 */
export const aiSdkFormat: StreamFormat = {
  headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
  frame({ event }, context) {
    const chunks = aiSdkChunksOf(event, context);
    return chunks
      .map((chunk, index) =>
        formatSseFrame({ ...(index === chunks.length - 1 ? { id: event.seq } : {}), data: JSON.stringify(chunk) }),
      )
      .join('');
  },
  end: () => DONE_FRAME,
};
