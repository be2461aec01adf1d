import type { IncomingMessage } from 'node:http';
import { BadRequestError } from '../errors.js';
import { protoKeyPath } from '../protocol/proto-key-path.js';
import { JSON_CONTENT_TYPE } from './loopback-only.js';

/**
 * Reads a JSON request body: 415 unless the content type is JSON, 413 past `limitBytes` (nothing past
 * the limit is kept, so an oversize body costs no more memory than the limit), 400 when it is not valid
 * JSON or holds a `"__proto__"` key anywhere.
 * An empty body reads as `{}`, so a bare `POST /v1/runs` starts a run with every default (without API
 * keys it still needs the JSON content type: see `loopback-only.ts`).
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  let overflow = false;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) {
      overflow = true;
      break;
    }
    chunks.push(chunk);
  }
  if (overflow) {
    // Destroying the request would reset the connection before the 413 is out (a chunked upload
    // still under way gets ECONNRESET instead of an answer). The rest is read and dropped instead,
    // until the answer is out and the error middleware's `Connection: close` ends the connection.
    req.resume();
    throw tooLarge(limitBytes);
  }
  if (size === 0) return {};
  const type = req.headers['content-type'] ?? '';
  if (!JSON_CONTENT_TYPE.test(type)) {
    throw new BadRequestError(
      `Send the body as JSON with "Content-Type: application/json" (got "${type.slice(0, 100)}").`,
      { code: 'unsupported_media_type' },
    );
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`The body is not valid JSON: ${(error as Error).message}.`, { code: 'invalid_json' });
  }
  const keys = protoKeyPath(body);
  if (keys !== undefined) {
    const path = keys.join('.');
    // Refused rather than kept, in every object of every body (docs/protocol.md §2.5).
    const message =
      'a key named "__proto__" is not accepted: JavaScript readers, this server among them, take it for the ' +
      "object's prototype rather than data; rename the key";
    throw new BadRequestError(`Invalid request: ${path}: ${message}.`, {
      code: 'invalid_request',
      details: [{ path, message }],
    });
  }
  return body;
}

function tooLarge(limitBytes: number): BadRequestError {
  return new BadRequestError(`The body is larger than ${limitBytes} bytes (RUNBRIDGE_MAX_BODY_BYTES).`, {
    code: 'body_too_large',
  });
}
