import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { protoKeyPath } from '../../protocol/proto-key-path.js';
import { requestValidationFailed } from './ors-http-errors.js';
import { OrsServerError } from './ors-server-error.js';
import { jsonInvalidIssue, validationIssues } from './validation-detail.js';

/** Bodies past this are refused with 413; a task spec or tool input of this size is a client bug. */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Reads the request body as JSON and validates it with `schema`. As in the reference server (FastAPI),
 * a body that is not JSON, is missing, or does not fit is a 422 with the list of problems; the content
 * type is not checked, because the reference does not require one either. Past {@link MAX_BODY_BYTES}
 * the read stops and the answer is 413; a body cut off by the client is a 400.
 */
export async function parseRequestBody<Schema extends z.ZodType>(
  req: IncomingMessage,
  schema: Schema,
): Promise<z.output<Schema>> {
  return parseBodyText(await readBodyText(req), schema);
}

/** The raw request body as text (413 past {@link MAX_BODY_BYTES}, 400 when the client cut it off); for reading it before it is judged. */
export async function readBodyText(req: IncomingMessage): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof OrsServerError) throw error;
    throw new OrsServerError(`The request body was cut off (${(error as Error).message}); send the request again.`, {
      code: 'body_incomplete',
    });
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `text` parsed as JSON and validated with `schema`; a 422 in FastAPI's shape when either fails, or
 * when the body holds a `"__proto__"` key anywhere (`proto_key`): zod and the environments' own code
 * would read it as a prototype and drop it, so a tool would run without part of its input.
 */
export function parseBodyText<Schema extends z.ZodType>(text: string, schema: Schema): z.output<Schema> {
  const body = parseJson(text);
  const keys = protoKeyPath(body);
  if (keys !== undefined) {
    throw requestValidationFailed([
      { type: 'proto_key', loc: ['body', ...keys], msg: 'A key named "__proto__" is not accepted', input: null },
    ]);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw requestValidationFailed(validationIssues(parsed.error, body));
  return parsed.data;
}

/** An empty body parses as `undefined`, which the schema then reports as a missing body. */
function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw requestValidationFailed([jsonInvalidIssue((error as Error).message)]);
  }
}

function tooLarge(): OrsServerError {
  return new OrsServerError(
    `The request body is larger than ${MAX_BODY_BYTES} bytes; send a smaller task spec or tool input.`,
    { code: 'body_too_large' },
  );
}
