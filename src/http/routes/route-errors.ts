import { ERROR_CODE_NAMES, ERROR_CODES, type ErrorCode, errorCodesWhere } from '../../protocol/error-codes.js';
import { methodOf, type RouteDeclaration, type RouteKey } from './route.js';

/** The codes routes share, named once; a route lists them beside its own. */

/** What reading a JSON body refuses (`read-json-body.ts`), and what validating it does. */
export const JSON_BODY_ERRORS = [
  'invalid_request',
  'invalid_json',
  'unsupported_media_type',
  'body_too_large',
] as const satisfies readonly ErrorCode[];

/** A request that reads or writes the shared store (Redis) while it cannot be reached or refuses writes. */
export const STORE_ERRORS = ['store_unavailable'] as const satisfies readonly ErrorCode[];

/** The ORS server, asked about an environment or its tasks, could not answer as ORS. */
export const ORS_ERRORS = [
  'ors_unavailable',
  'ors_server_error',
  'ors_bad_response',
  'ors_request_rejected',
  'ors_response_too_large',
] as const satisfies readonly ErrorCode[];

/** What refuses a run, or a batch's pairs, a place on the queue (docs/protocol.md §6.2). */
export const QUEUE_ERRORS = [
  'queue_full',
  'key_queue_full',
  'store_full',
  'key_store_full',
  'draining',
  ...STORE_ERRORS,
] as const satisfies readonly ErrorCode[];

/** What refuses a run's request before it is queued: its model, environment, task or webhook. */
export const RUN_REQUEST_ERRORS = [
  'unknown_model',
  'unknown_env',
  'invalid_task',
  'webhooks_not_configured',
  'webhook_refused',
  'webhook_unresolved',
  ...ORS_ERRORS,
] as const satisfies readonly ErrorCode[];

/**
 * The codes every route of its kind may answer besides its own, which its declaration leaves out:
 * `unauthorized` where a key (or the metrics token) is needed; without API keys, `host_not_allowed` on
 * every route and `unsupported_media_type` on every POST not sent as JSON (`loopback-only.ts`); and
 * `internal_error`, a bug, anywhere.
 */
export function impliedErrors(key: RouteKey, route: RouteDeclaration): ErrorCode[] {
  return [
    ...(route.access === 'public' ? [] : (['unauthorized'] as const)),
    'host_not_allowed',
    ...(methodOf(key) === 'POST' ? (['unsupported_media_type'] as const) : []),
    'internal_error',
  ];
}

/** One error answer a route may give: its code, and the status it comes with. */
export interface RouteRefusal {
  code: ErrorCode;
  status: number;
}

/**
 * Every error answer `route` may give: its own codes and the implied ones, each with the status the
 * error table gives it, in the table's order; and, on a route that answers how a run ended
 * (`answersRunEnd`), every code a run can end with, as 502 (500 for `internal_error`), and 409 `cancelled`.
 */
export function routeRefusals(key: RouteKey, route: RouteDeclaration): RouteRefusal[] {
  const own = new Set<ErrorCode>([...route.errors, ...impliedErrors(key, route)]);
  const refusals = ERROR_CODE_NAMES.filter((code) => own.has(code)).map((code) => ({
    code,
    status: ERROR_CODES[code].status as number,
  }));
  if (route.answersRunEnd === undefined) return refusals;
  const ended = [
    ...errorCodesWhere('run').map((code) => ({ code, status: code === 'internal_error' ? 500 : 502 })),
    { code: 'cancelled' as const, status: 409 },
  ];
  const seen = new Set(refusals.map(({ code, status }) => `${code} ${status}`));
  return [...refusals, ...ended.filter(({ code, status }) => !seen.has(`${code} ${status}`))];
}
