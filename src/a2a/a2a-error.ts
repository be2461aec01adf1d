import { RunbridgeError } from '../errors.js';
import type { ErrorCode } from '../protocol/error-codes.js';

/**
 * The JSON-RPC error codes A2A answers with (v1.0 §5.4, v0.3 §8): the standard ones, then A2A's own.
 * `-32000`, a server error JSON-RPC leaves to implementations, is runbridge's for a refusal that
 * passes (a full queue, a server shutting down, a missing key): `data` names it, and the HTTP status
 * and `Retry-After` say when to come back.
 */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  refused: -32000,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  invalidAgentResponse: -32006,
  extendedCardNotConfigured: -32007,
  versionNotSupported: -32009,
} as const;
export type RpcCode = (typeof RPC_CODES)[keyof typeof RPC_CODES];

/** The `google.rpc.ErrorInfo` reason of each A2A code (v1.0 §9.5): the error's name in upper snake case. */
export const RPC_REASONS: Readonly<Record<RpcCode, string>> = {
  [-32700]: 'PARSE_ERROR',
  [-32600]: 'INVALID_REQUEST',
  [-32601]: 'METHOD_NOT_FOUND',
  [-32602]: 'INVALID_PARAMS',
  [-32603]: 'INTERNAL_ERROR',
  [-32000]: 'REFUSED',
  [-32001]: 'TASK_NOT_FOUND',
  [-32002]: 'TASK_NOT_CANCELABLE',
  [-32003]: 'PUSH_NOTIFICATION_NOT_SUPPORTED',
  [-32004]: 'UNSUPPORTED_OPERATION',
  [-32005]: 'CONTENT_TYPE_NOT_SUPPORTED',
  [-32006]: 'INVALID_AGENT_RESPONSE',
  [-32007]: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
  [-32009]: 'VERSION_NOT_SUPPORTED',
};

/**
 * An error the A2A endpoint answers as a JSON-RPC error: its JSON-RPC `rpcCode`, and, as every
 * runbridge error, a typed `code` from the error table that the answer's `data` carries, so a client
 * can tell a full queue from a bad body without parsing the message.
 */
export class A2aError extends RunbridgeError {
  readonly rpcCode: RpcCode;

  constructor(
    rpcCode: RpcCode,
    message: string,
    options: { code: ErrorCode; details?: unknown; cause?: unknown; status?: number; retryAfterSeconds?: number },
  ) {
    super(message, options);
    this.rpcCode = rpcCode;
  }
}

/** `-32001`: no such task for this key (it never existed, was forgotten, or is another key's: we do not say which). */
export function taskNotFound(id: string): A2aError {
  return new A2aError(
    RPC_CODES.taskNotFound,
    `Task not found: "${id}" never existed, was forgotten after its retention, or belongs to another key.`,
    { code: 'run_not_found', status: 200 },
  );
}

/**
 * The JSON-RPC code of an error the runs raised (a `RunbridgeError` of the HTTP API): a task unknown
 * to the key is `-32001`, one that has ended `-32004`, a bad request `-32602`, a refusal that passes
 * (429, 503, 401) `-32000`, and anything else of the server's or its peers' `-32603`.
 */
export function rpcCodeOf(error: RunbridgeError): RpcCode {
  if (error instanceof A2aError) return error.rpcCode;
  if (error.code === 'run_not_found') return RPC_CODES.taskNotFound;
  if (error.code === 'run_ended' || error.code === 'run_not_started') return RPC_CODES.unsupportedOperation;
  if (error.status === 401 || error.status === 429 || error.status === 503) return RPC_CODES.refused;
  if (error.status >= 400 && error.status < 500) return RPC_CODES.invalidParams;
  return RPC_CODES.internalError;
}

/**
 * The HTTP status a JSON-RPC error is answered with: 200, as the SDKs answer protocol errors, but for
 * a body over the cap (413), the refusals that pass (401, 429, 503: clients and proxies act on those
 * statuses and `Retry-After`) and the faults of the server or its peers (its 500 or 502, as the HTTP
 * API answers them).
 */
export function httpStatusOf(error: RunbridgeError, rpcCode: RpcCode): number {
  if (error.status === 413) return 413;
  if (rpcCode === RPC_CODES.refused) return error.status;
  if (rpcCode === RPC_CODES.internalError && error.status >= 500) return error.status;
  return 200;
}
