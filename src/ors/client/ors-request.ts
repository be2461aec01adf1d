import type { z } from 'zod';
import { OrsError } from '../../errors.js';
import { backoffDelayMs, parseRetryAfterMs, type RetryPolicy } from '../../http-client/backoff.js';
import { describeFailure, failureCode, isConnectionRefused } from '../../http-client/network-failure.js';
import { type AbortParents, AbortScope, sleepUnlessAborted } from './abort-scope.js';
import { describeZodError } from './describe-zod-error.js';
import type { OrsHttp, OrsHttpResponse } from './ors-http.js';
import { readAnswerText } from './read-answer.js';
import type { Redactor } from './redactor.js';
import { type EndpointKind, readErrorDetail, statusError } from './status-error.js';

/** What every ORS HTTP exchange of one client shares. */
export interface OrsTransport {
  /** Base URL without a trailing slash. */
  baseUrl: string;
  /** Carries every request (docs/ors.md: `node:http` keep-alive by default, or the caller's `fetch`). */
  send: OrsHttp;
  /** Sent with every request (the built-in server's `Authorization`). */
  headers: Record<string, string>;
  /** Per-attempt bound of a non-streaming request, response body included. */
  requestTimeoutMs: number;
  /** Bytes read of any one answer, a call's stream included, before it fails (docs/protocol.md §5.6). */
  maxAnswerBytes: number;
  retry: RetryPolicy;
}

/** One non-streaming ORS request. */
export interface OrsRequest {
  method: 'GET' | 'POST';
  /** Path below the base URL, already percent-encoded, starting with `/`. */
  path: string;
  /** Decides what a 4xx means (see {@link statusError}). */
  kind: EndpointKind;
  /** Sent as `X-Session-ID`. */
  sid?: string;
  /** JSON-encoded as the request body. */
  body?: unknown;
  /**
   * True when sending the request twice is harmless. Such a request is retried after any network
   * failure, timeout, 429 or 5xx; any other only when the server surely did not act on it (connection
   * refused, 429, 503).
   */
  idempotent: boolean;
  /**
   * What aborts it: the caller's signal, and a session's end for a session's request. Each attempt
   * follows them all with one scope of its own rather than a joined signal per layer.
   */
  signals?: AbortParents;
  /** Overrides the transport's retry count (e.g. 0 for a ping that is itself repeated). */
  retries?: number;
  /** Removes the episode's secrets from server error details before they reach an error. */
  redact?: Redactor;
}

/** A successful (2xx) response, body read in full (up to the transport's `maxAnswerBytes`). */
export interface OrsTextResponse {
  text: string;
  /** The answer's headers (read only where needed: a transport may make them on first use). */
  headers: OrsHttpResponse['headers'];
}

/** `METHOD /path`, the way every ORS error message names the endpoint. */
function endpointName(request: Pick<OrsRequest, 'method' | 'path'>): string {
  return `${request.method} ${request.path}`;
}

/**
 * Sends `request` with retries and returns the 2xx body as text. Throws `OrsError`
 * `ors_response_too_large` at once, without a retry, for an answer (or error body) past
 * `transport.maxAnswerBytes`; `ors_unavailable` when the server could not be reached or stayed unavailable (network failures,
 * timeouts, 502–504, 429) past the retries; `ors_server_error` with the server's own message when it
 * answered with a failure of its own (500 and the other 5xx) — at once when it answers the same
 * failure twice in a row (what fails the same way each time, such as an environment whose setup
 * failed, is not retried further); the 4xx mapping of {@link statusError} otherwise; and the
 * reason of whichever of `request.signals` aborts.
 */
export async function orsFetchText(transport: OrsTransport, request: OrsRequest): Promise<OrsTextResponse> {
  const endpoint = endpointName(request);
  const retries = request.retries ?? transport.retry.retries;
  let previous: ServerFailure | undefined;
  for (let attempt = 0; ; attempt++) {
    const scope = new AbortScope(request.signals ?? [], transport.requestTimeoutMs);
    let failure: {
      reason: string;
      retryable: boolean;
      retryAfterMs: number;
      status?: number;
      server?: ServerFailure;
      cause?: unknown;
    };
    try {
      const response = await transport.send(`${transport.baseUrl}${request.path}`, {
        method: request.method,
        headers: {
          ...transport.headers,
          accept: 'application/json',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(request.sid === undefined ? {} : { 'x-session-id': request.sid }),
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
        signal: scope.signal,
        idempotent: request.idempotent,
      });
      const answer = { endpoint, limit: transport.maxAnswerBytes };
      if (response.ok) {
        const text = await readAnswerText(response, endpoint, answer.limit);
        // A getter, so a transport that makes its headers on first use makes them only for the caller that reads them.
        return {
          text,
          get headers() {
            return response.headers;
          },
        };
      }
      const detail = await readErrorDetail(response, answer, request.redact);
      const server = isServerFailure(response.status) ? { status: response.status, detail } : undefined;
      if (server && previous && sameFailure(server, previous)) throw serverError(endpoint, server, attempt + 1);
      previous = server;
      const retryable =
        response.status === 429 || response.status === 503 || (request.idempotent && response.status >= 500);
      if (!retryable) {
        throw server
          ? serverError(endpoint, server, attempt + 1)
          : statusError(request.kind, endpoint, response.status, detail, request.sid);
      }
      failure = {
        reason: `answered ${response.status}${detail ? `: ${detail}` : ''}`,
        retryable,
        retryAfterMs: parseRetryAfterMs(response.headers.get('retry-after')),
        status: response.status,
        ...(server ? { server } : {}),
      };
    } catch (error) {
      scope.throwIfParentAborted();
      if (error instanceof OrsError) throw error;
      const code = failureCode(error);
      failure = {
        reason: scope.timedOut
          ? `did not answer within ${transport.requestTimeoutMs} ms`
          : code !== undefined
            ? `did not answer (${code}`
            : describeFailure(error),
        retryable: request.idempotent || isConnectionRefused(error),
        retryAfterMs: 0,
        cause: error,
      };
    } finally {
      scope.dispose();
    }
    if (!failure.retryable || attempt >= retries) {
      if (failure.server) throw serverError(endpoint, failure.server, attempt + 1);
      const attempts = `${attempt + 1} attempt${attempt === 0 ? '' : 's'}`;
      // A server that never answered is most likely not running: say so in the words of what happened.
      const said = failure.reason.startsWith('did not answer (')
        ? `the ORS server at ${transport.baseUrl} ${failure.reason}, ${attempts}); is it running?`
        : `${endpoint}: the ORS server at ${transport.baseUrl} ${failure.reason} (${attempts}). Check that it is running and reachable.`;
      throw new OrsError(said, {
        code: 'ors_unavailable',
        details: { endpoint, attempts: attempt + 1, ...(failure.status ? { status: failure.status } : {}) },
        cause: failure.cause,
      });
    }
    await sleepUnlessAborted(backoffDelayMs(attempt, transport.retry, failure.retryAfterMs), request.signals ?? []);
  }
}

/** A failure the ORS server answered as its own (not "unavailable"): its status and message. */
export interface ServerFailure {
  status: number;
  detail: string;
}

/**
 * True for a 5xx the server answers about its own work: 500 and the rest, but not 502, 503 and 504,
 * which say it (or what stands in front of it) is unavailable for now.
 */
export function isServerFailure(status: number): boolean {
  return status >= 500 && status !== 502 && status !== 503 && status !== 504;
}

/** True when two server failures are the same answer: the same status and the same message. */
export function sameFailure(a: ServerFailure, b: ServerFailure): boolean {
  return a.status === b.status && a.detail === b.detail;
}

/**
 * `ors_server_error`: the server is up and said what went wrong, so its message leads, under a code
 * that does not send the user to check whether it runs.
 */
export function serverError(endpoint: string, failure: ServerFailure, attempts: number): OrsError {
  const tries = attempts === 1 ? '' : `, ${attempts} attempts`;
  return new OrsError(
    `${endpoint}: the ORS server failed: ${failure.detail || '(no message)'} (HTTP ${failure.status}${tries}).`,
    { code: 'ors_server_error', details: { endpoint, status: failure.status, detail: failure.detail, attempts } },
  );
}

/**
 * Sends `request` like {@link orsFetchText} and returns the body parsed as JSON and validated by
 * `schema`. A body that is not JSON or does not match throws `OrsError` `ors_bad_response` naming
 * the endpoint and the offending field.
 */
export async function orsFetchJson<S extends z.ZodType>(
  transport: OrsTransport,
  request: OrsRequest,
  schema: S,
): Promise<z.output<S>> {
  const { text } = await orsFetchText(transport, request);
  return parseOrsJson(endpointName(request), text, schema);
}

/** Parses `text` as JSON valid under `schema`, or throws `OrsError` `ors_bad_response` naming `endpoint`. */
export function parseOrsJson<S extends z.ZodType>(endpoint: string, text: string, schema: S): z.output<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new OrsError(
      `${endpoint}: the ORS server answered with malformed JSON (${(error as Error).message}). ` +
        'It does not speak ORS, or a proxy rewrote the response.',
      { code: 'ors_bad_response', details: { endpoint }, cause: error },
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const { summary, issues } = describeZodError(parsed.error);
    throw new OrsError(`${endpoint}: ${summary}. The ORS server's answer does not match the ORS wire format.`, {
      code: 'ors_bad_response',
      details: { endpoint, issues },
    });
  }
  return parsed.data;
}
