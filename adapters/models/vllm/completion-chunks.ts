import { readSseEvents } from '../../../src/sse/read-sse-events.js';
import { type VendorInfo, vendorFailureToModelError } from '../common/vendor-failure.js';

/** A chunk of a streaming `POST /v1/completions`, with vLLM's `return_token_ids` fields. */
export interface VllmCompletionChunk {
  model?: string;
  choices: Array<{
    index: number;
    text?: string | null;
    logprobs?: {
      token_logprobs?: Array<number | null> | null;
      top_logprobs?: Array<Record<string, number> | null> | null;
    } | null;
    finish_reason?: string | null;
    /** The stop string or token id that ended the completion; null for the end-of-sequence token. */
    stop_reason?: number | string | null;
    /** Ids of the tokens this chunk adds. */
    token_ids?: number[] | null;
    /** Ids of the prompt, on the first chunk. */
    prompt_token_ids?: number[] | null;
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
}

/**
 * The chunks of a streaming `/v1/completions` answer, read with the bridge's one SSE reader
 * (`src/sse`, over eventsource-parser) up to `[DONE]`. A frame that is an error (`{"error": …}`, what
 * vLLM sends when the generation fails after the stream began) throws it as a `ModelError`; a frame
 * that is not JSON throws as the stream breaking off. Leaving the iteration early closes the
 * connection.
 */
export async function* completionChunks(
  body: ReadableStream<Uint8Array>,
  vendor: VendorInfo,
): AsyncGenerator<VllmCompletionChunk, void, undefined> {
  for await (const event of readSseEvents(body)) {
    if (event.data === '[DONE]') return;
    const chunk = JSON.parse(event.data) as VllmCompletionChunk & { error?: { message?: unknown; type?: unknown } };
    if (chunk.error) {
      throw vendorFailureToModelError({
        vendor,
        kind: 'in-stream',
        ...(typeof chunk.error.type === 'string' ? { vendorType: chunk.error.type } : {}),
        vendorMessage: typeof chunk.error.message === 'string' ? chunk.error.message : JSON.stringify(chunk.error),
        cause: chunk.error,
      });
    }
    yield chunk;
  }
}
