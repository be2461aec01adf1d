import { OrsError } from '../../errors.js';
import { backoffDelayMs, parseRetryAfterMs } from '../../http-client/backoff.js';
import { describeFailure, isConnectionRefused } from '../../http-client/network-failure.js';
import { ParseError, readSseEvents } from '../../sse/read-sse-events.js';
import { RunToolResultSchema, type ToolOutput } from '../ors-schemas.js';
import { type AbortParents, AbortScope, sleepUnlessAborted } from './abort-scope.js';
import type { OrsHttpResponse } from './ors-http.js';
import {
  isServerFailure,
  type OrsTransport,
  parseOrsJson,
  type ServerFailure,
  sameFailure,
  serverError,
} from './ors-request.js';
import { AnswerMeter } from './read-answer.js';
import type { Redactor } from './redactor.js';
import { readErrorDetail, statusError } from './status-error.js';

/** How one `/{env}/call` ended. A transport failure is thrown instead (see {@link callTool}). */
export type OrsCallOutcome =
  /** `end` with `{"ok": true}`. */
  | { type: 'output'; taskId: string; output: ToolOutput }
  /** `end` with `{"ok": false, "error"}`: the tool refused (unknown tool, bad input, a failed check). */
  | { type: 'tool_error'; taskId: string; error: string }
  /** `event: error`: the tool raised, or the server failed; no `end` follows. */
  | { type: 'server_error'; taskId: string | null; error: string }
  /** A reconnect with our `task_id` was answered "unknown task_id": the result expired or never existed. */
  | { type: 'unknown_task'; taskId: string; error: string };

/** Everything {@link callTool} needs from the session it runs in. */
export interface CallToolContext {
  transport: OrsTransport;
  env: string;
  sid: string;
  /** No byte (not even a comment) for this long means the stream is dead. */
  silenceTimeoutMs: number;
  /** The caller's signal and the session's end; the reason of the one that aborts is what the call rejects with. */
  signals: AbortParents;
  /** Told when the server says the session is gone, before the error is thrown. */
  onSessionLost: (error: OrsError) => void;
  /** Removes the episode's secrets from the server's error text (HTTP details, `error` events, tool errors). */
  redactor: Redactor;
}

/** A call stream buffers at most one frame; a frame this large means the peer is not chunking at all. */
const MAX_FRAME_CHARS = 64 * 1024 * 1024;

const UNKNOWN_TASK = /unknown task/i;

/** An attempt that produced no outcome, and what may be done about it. */
interface BrokenAttempt {
  reason: string;
  /** The server surely did not start the tool (connection refused, 429, 5xx before any stream). */
  safeToResend: boolean;
  /** The stream ended cleanly but without `end` or `error`: a protocol fault, not a network one. */
  incomplete: boolean;
  retryAfterMs: number;
  /** The server answered a failure of its own (a 500) before any stream. */
  server?: ServerFailure;
  cause?: unknown;
}

/**
 * Calls tool `name` over `POST /{env}/call` and reads its SSE answer: `task_id`, `chunk`*, then `end`
 * (chunk data joined with the end data, parsed and validated) or `error`. The first attempt sends no
 * `task_id`. A stream that drops or stays silent after the server named the task is re-sent with
 * the same name, input and `task_id`, up to `transport.retry.retries` times with backoff, discarding
 * the broken attempt's chunks; a refused connection, 429 or 5xx before any stream is re-sent fresh.
 * A stream that breaks before the task is named throws `ors_call_interrupted`, because the tool may
 * have started and a fresh call could run it twice. A 500 (or another 5xx the server answers about
 * its own work) answered the same twice in a row throws `ors_server_error` with its message. An answer
 * past `transport.maxAnswerBytes` throws `ors_response_too_large` at once, not resent: the server would
 * only send it again. Other failures throw `OrsError` (`ors_session_lost`, `ors_request_rejected`,
 * `ors_bad_response`, `ors_unavailable`, `ors_server_error`); an abort of
 * one of `context.signals` rejects with its reason at once.
 */
export async function callTool(
  context: CallToolContext,
  name: string,
  input: Record<string, unknown>,
): Promise<OrsCallOutcome> {
  const { transport, signals } = context;
  const path = `/${encodeURIComponent(context.env)}/call`;
  const endpoint = `POST ${path}`;
  let taskId: string | null = null;

  const attempt = async (): Promise<OrsCallOutcome | BrokenAttempt> => {
    const reconnect = taskId !== null;
    const scope = new AbortScope(signals, context.silenceTimeoutMs);
    const silence = `sent nothing for ${context.silenceTimeoutMs} ms`;
    try {
      let response: OrsHttpResponse;
      try {
        response = await transport.send(`${transport.baseUrl}${path}`, {
          method: 'POST',
          headers: {
            ...transport.headers,
            accept: 'text/event-stream',
            'content-type': 'application/json',
            'x-session-id': context.sid,
          },
          body: JSON.stringify({ name, input, ...(taskId === null ? {} : { task_id: taskId }) }),
          signal: scope.signal,
          // A tool call is never sent twice by accident: it goes only on a connection that answered
          // under a second ago, which the server is not closing as idle.
          idempotent: false,
        });
      } catch (error) {
        scope.throwIfParentAborted();
        return broken(scope.timedOut ? silence : describeFailure(error), {
          safeToResend: isConnectionRefused(error),
          cause: error,
        });
      }
      const answer = { endpoint, limit: transport.maxAnswerBytes };
      if (!response.ok) {
        const detail = await readErrorDetail(response, answer, context.redactor).catch((error: unknown) => {
          // An error body too large to read is an answer of its own; any other failed read says nothing.
          if (error instanceof OrsError && error.code === 'ors_response_too_large') throw error;
          return '';
        });
        scope.throwIfParentAborted();
        if (response.status === 429 || response.status >= 500) {
          return broken(`answered ${response.status}${detail ? `: ${detail}` : ''}`, {
            safeToResend: true,
            retryAfterMs: parseRetryAfterMs(response.headers.get('retry-after')),
            ...(isServerFailure(response.status) ? { server: { status: response.status, detail } } : {}),
          });
        }
        const error = statusError('session', endpoint, response.status, detail, context.sid);
        if (error.code === 'ors_session_lost') context.onSessionLost(error);
        throw error;
      }
      if (response.body === null) return broken('answered 200 without a body', { incomplete: true });
      // Chunks belong to one attempt: a reconnect replays the result from its start, and so does the count.
      let buffer = '';
      let ended: OrsCallOutcome | undefined;
      const meter = new AnswerMeter(answer.endpoint, answer.limit);
      try {
        const events = readSseEvents(response.body, {
          onActivity: (bytes) => {
            scope.touch();
            // Throws past the limit: the reader stops there and closes the connection (§5.6).
            meter.add(bytes);
          },
          maxBufferSize: MAX_FRAME_CHARS,
        });
        for await (const event of events) {
          if (ended) continue;
          switch (event.event) {
            case 'task_id':
              if (event.data !== '') taskId = event.data;
              break;
            case 'chunk':
              buffer += event.data;
              break;
            case 'end':
              ended = outcomeOfEnd(endpoint, taskId ?? '', buffer + event.data, context.redactor);
              // Nothing follows `end`. When the whole answer is already here, reading out its last
              // bytes (at no wait) keeps the connection for the next call; otherwise it is closed.
              if (!response.complete) return ended;
              break;
            case 'error': {
              const error = context.redactor.text(event.data);
              if (reconnect && taskId !== null && UNKNOWN_TASK.test(event.data)) {
                return { type: 'unknown_task', taskId, error };
              }
              return { type: 'server_error', taskId, error };
            }
            default:
              // Events this client does not know are skipped, so servers can add some.
              break;
          }
        }
      } catch (error) {
        scope.throwIfParentAborted();
        if (error instanceof OrsError) throw error;
        if (error instanceof ParseError) {
          throw new OrsError(`${endpoint}: ${error.message}; the ORS server does not cut its result into chunks.`, {
            code: 'ors_bad_response',
            details: { endpoint },
            cause: error,
          });
        }
        return broken(scope.timedOut ? silence : `broke the stream: ${describeFailure(error)}`, { cause: error });
      }
      return ended ?? broken('ended the stream without an end or error event', { incomplete: true });
    } finally {
      scope.dispose();
    }
  };

  let previous: ServerFailure | undefined;
  for (let tries = 0; ; tries++) {
    const result = await attempt();
    if ('type' in result) return result;
    // The same failure twice (an environment whose setup failed answers every call alike): its
    // message is the answer, and another try would only repeat it.
    if (result.server && previous && sameFailure(result.server, previous)) {
      throw serverError(endpoint, result.server, tries + 1);
    }
    previous = result.server;
    if (taskId === null && !result.safeToResend) {
      throw new OrsError(
        `${endpoint}: the ORS server ${result.reason} before it named the task. ` +
          `The tool "${name}" may have started, and calling it again could run it twice, so the call is ` +
          'not repeated; check the environment before calling the tool again.',
        { code: 'ors_call_interrupted', details: { endpoint, tool: name }, cause: result.cause },
      );
    }
    if (tries >= transport.retry.retries) {
      if (result.server) throw serverError(endpoint, result.server, tries + 1);
      const attempts = `${tries + 1} attempt${tries === 0 ? '' : 's'}`;
      const task = taskId === null ? 'before it named the task' : `for task ${taskId}`;
      throw result.incomplete
        ? new OrsError(
            `${endpoint}: the ORS server ${result.reason} ${task} (${attempts}); it does not follow the ORS ` +
              'call protocol (task_id, chunk*, then end or error).',
            { code: 'ors_bad_response', details: { endpoint, tool: name, taskId, attempts: tries + 1 } },
          )
        : new OrsError(
            `${endpoint}: the ORS server at ${transport.baseUrl} ${result.reason} ${task} (${attempts}). ` +
              'Check that it is running and reachable.',
            {
              code: 'ors_unavailable',
              details: { endpoint, tool: name, taskId, attempts: tries + 1 },
              cause: result.cause,
            },
          );
    }
    await sleepUnlessAborted(backoffDelayMs(tries, transport.retry, result.retryAfterMs), signals);
  }
}

function broken(reason: string, options: Partial<Omit<BrokenAttempt, 'reason'>> = {}): BrokenAttempt {
  return {
    reason,
    safeToResend: options.safeToResend ?? false,
    incomplete: options.incomplete ?? false,
    retryAfterMs: options.retryAfterMs ?? 0,
    ...(options.server === undefined ? {} : { server: options.server }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
  };
}

function outcomeOfEnd(endpoint: string, taskId: string, text: string, redactor: Redactor): OrsCallOutcome {
  const result = parseOrsJson(endpoint, text, RunToolResultSchema);
  return result.ok
    ? { type: 'output', taskId, output: result.output }
    : { type: 'tool_error', taskId, error: redactor.text(result.error) };
}
