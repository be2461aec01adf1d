import { OrsError } from '../../errors.js';
import type { OrsHttpResponse } from './ors-http.js';

/** What {@link readAnswerText} needs of a response: its body as it arrives. */
export type AnswerBody = Pick<OrsHttpResponse, 'body'>;

/**
 * `ors_response_too_large` for an answer of `endpoint` that passed `limit` bytes. An `OrsError`, so
 * no retry loop takes it for a network failure: the same server would only send it again.
 */
export function answerTooLarge(endpoint: string, limit: number): OrsError {
  return new OrsError(
    `${endpoint}: the ORS server's answer passed ${limit} bytes (RUNBRIDGE_ORS_MAX_ANSWER_BYTES), so the bridge ` +
      'stopped reading it. Check what the environment sends back, or raise the setting if answers this large are ' +
      'expected.',
    { code: 'ors_response_too_large', details: { endpoint, limit } },
  );
}

/**
 * Counts the bytes of one answer as they arrive and throws {@link answerTooLarge} once they pass
 * `limit` (docs/protocol.md §5.6): the caller stops reading there, which closes the connection.
 */
export class AnswerMeter {
  #bytes = 0;

  constructor(
    readonly endpoint: string,
    readonly limit: number,
  ) {}

  /** Counts `bytes` more; throws once the answer is over the limit. */
  add(bytes: number): void {
    this.#bytes += bytes;
    if (this.#bytes > this.limit) throw answerTooLarge(this.endpoint, this.limit);
  }
}

/**
 * The whole body of `response` as UTF-8 text, read as it arrives and never more than `limit` bytes of
 * it: past that, reading stops — ending the iteration closes the connection (`node:http`) or cancels the
 * stream (fetch) — and {@link answerTooLarge} is thrown. Not `text()`, which would read any amount.
 */
export async function readAnswerText(response: AnswerBody, endpoint: string, limit: number): Promise<string> {
  if (response.body === null) return '';
  const meter = new AnswerMeter(endpoint, limit);
  const chunks: Uint8Array[] = [];
  // Node's web streams are async iterable too, so both kinds of body are read the same way.
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    meter.add(chunk.byteLength);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
