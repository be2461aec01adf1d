import { z } from 'zod';
import type { RunbridgeError } from '../errors.js';
import { A2aError, httpStatusOf, RPC_CODES, RPC_REASONS, type RpcCode, rpcCodeOf } from './a2a-error.js';
import type { A2aVersion } from './a2a-version.js';
import { fieldIssues } from './field-issues.js';

/**
 * The JSON-RPC 2.0 envelope of the A2A endpoint: one request per POST (a batch is refused: A2A defines
 * none, and one POST must not start any number of runs), ids echoed with their JSON type, and errors
 * shaped as the requested protocol version writes them.
 */

/** A JSON-RPC id: a string, an integer or null. */
export const RpcIdSchema = z.union([z.string().max(256), z.number().int(), z.null()]);
export type RpcId = z.infer<typeof RpcIdSchema>;

/** A JSON-RPC request; `params` is an object or absent (A2A never sends positional params). */
export const RpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: RpcIdSchema.optional(),
  method: z.string().min(1).max(128),
  params: z.record(z.string(), z.unknown()).optional(),
});
export type RpcRequest = z.infer<typeof RpcRequestSchema>;

/** What an answer is made of: the id, and either a result or an error. */
export type RpcResponse =
  | { jsonrpc: '2.0'; id: RpcId; result: unknown }
  | { jsonrpc: '2.0'; id: RpcId; error: { code: number; message: string; data?: unknown } };

/**
 * `body` read as a JSON-RPC request, or the `-32600` error (an array is a batch, refused). The id of a
 * request that is otherwise bad is kept, so its error still answers it.
 */
export function parseRpcRequest(body: unknown): RpcRequest {
  if (Array.isArray(body)) {
    throw new A2aError(
      RPC_CODES.invalidRequest,
      'JSON-RPC batches are not accepted here: send one request per POST (A2A defines no batches).',
      { code: 'jsonrpc_batch_refused', status: 200 },
    );
  }
  const parsed = RpcRequestSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const { issues, summary } = fieldIssues(parsed.error, [], 10);
  throw new A2aError(RPC_CODES.invalidRequest, `Not a JSON-RPC 2.0 request: ${summary}.`, {
    code: 'invalid_request',
    details: issues,
    status: 200,
  });
}

/** The id of `body` when it has a usable one (to answer a request that is otherwise bad), else null. */
export function idOf(body: unknown): RpcId {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return null;
  const parsed = RpcIdSchema.safeParse((body as { id?: unknown }).id);
  return parsed.success ? parsed.data : null;
}

/** A success answer. */
export function rpcResult(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, result };
}

/** An error answer, and the HTTP status it goes out with. */
export interface RpcErrorAnswer {
  body: RpcResponse;
  status: number;
}

/**
 * The JSON-RPC error answering `error` in `version`'s shape. v1.0 (§9.5) puts a list of typed details
 * in `data`: a `google.rpc.ErrorInfo` with the A2A reason and, in its metadata, runbridge's own code,
 * then a `google.rpc.BadRequest` listing the bad fields when there are any; v0.3 leaves `data` free,
 * and gets `{code, details}`.
 */
export function rpcError(id: RpcId, error: RunbridgeError, version: A2aVersion): RpcErrorAnswer {
  const code = rpcCodeOf(error);
  return {
    body: { jsonrpc: '2.0', id, error: { code, message: error.message, data: errorData(code, error, version) } },
    status: httpStatusOf(error, code),
  };
}

function errorData(code: RpcCode, error: RunbridgeError, version: A2aVersion): unknown {
  if (version === '0.3') {
    return { code: error.code, ...(error.details === undefined ? {} : { details: error.details }) };
  }
  const info = {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: RPC_REASONS[code],
    domain: 'a2a-protocol.org',
    metadata: { code: error.code },
  };
  const fields = fieldViolations(error.details);
  return fields.length === 0
    ? [info]
    : [info, { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: fields }];
}

/** The `{path, message}` details of a validation error, as `BadRequest` field violations. */
function fieldViolations(details: unknown): Array<{ field: string; description: string }> {
  if (!Array.isArray(details)) return [];
  return details.flatMap((detail: unknown) => {
    const { path, message } = (detail ?? {}) as { path?: unknown; message?: unknown };
    return typeof path === 'string' && typeof message === 'string' ? [{ field: path, description: message }] : [];
  });
}
