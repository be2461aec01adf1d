import type { IncomingMessage } from 'node:http';
import { BadRequestError } from '../errors.js';

/**
 * Reads a JSON request body: 415 unless the content type is JSON, 413 past `limitBytes` (the read
 * stops there, so an oversize body costs no more than the limit), 400 when it is not valid JSON.
 * An empty body reads as `{}`, so a bare `POST /v1/runs` starts a run with every default.
 */
export async function readJsonBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) throw tooLarge(limitBytes);
    chunks.push(chunk);
  }
  if (size === 0) return {};
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw new BadRequestError(`Send the body as JSON with "Content-Type: application/json" (got "${type.slice(0, 100)}").`, {
      code: 'unsupported_media_type',
      status: 415,
    });
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequestError(`The body is not valid JSON: ${(error as Error).message}.`, { code: 'invalid_json' });
  }
}

function tooLarge(limitBytes: number): BadRequestError {
  return new BadRequestError(`The body is larger than ${limitBytes} bytes (RUNBRIDGE_MAX_BODY_BYTES).`, {
    code: 'body_too_large',
    status: 413,
  });
}
