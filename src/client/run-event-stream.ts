import { fillPath } from '../http/routes/route.js';
import { backoffDelayMs, sleep } from '../http-client/backoff.js';
import { readSseEvents } from '../sse/read-sse-events.js';
import { ApiError, ConnectionError, StreamInterruptedError, UnexpectedResponseError } from './client-errors.js';
import { type ClientTransport, send } from './client-transport.js';
import { type AnyRunEvent, isTerminalRunEvent } from './client-types.js';

/** How a broken event stream is resumed; every duration in milliseconds. */
export interface ReconnectOptions {
  /**
   * Retries, after a first attempt, of a connection that failed without a new event: the stream gives up
   * when `retries + 1` connections in a row brought nothing new; default 5.
   */
  retries?: number;
  /** First backoff ceiling, doubled per failure in a row, with full jitter; default 500. */
  baseDelayMs?: number;
  /** Cap of any wait, the server's `retry:` and `Retry-After` included; default 30 000. */
  maxDelayMs?: number;
}

/** Options of one `runs.events` call. */
export interface RunEventsOptions {
  /** The seq of the last event already held: the stream starts after it. Default: from the first event (seq 0). */
  after?: number;
  /** Aborting it ends the iteration, which then rejects with the signal's reason, and closes the connection. */
  signal?: AbortSignal;
}

const DEFAULTS: Required<ReconnectOptions> = { retries: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

/** `options` over the defaults; a value that is not a whole number ≥ 0 is a `TypeError` naming it. */
export function reconnectPolicy(options: ReconnectOptions = {}): Required<ReconnectOptions> {
  const policy = { ...DEFAULTS };
  for (const key of Object.keys(DEFAULTS) as Array<keyof ReconnectOptions>) {
    const value = options[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new TypeError(`reconnect.${key} must be a whole number of 0 or more, got ${value}.`);
    }
    policy[key] = value;
  }
  return policy;
}

/** Statuses worth asking again: the bridge or a proxy is busy, restarting or briefly failing. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/** The stream ended without its terminal event: the connection was cut somewhere between us and the bridge. */
class StreamEndedEarly extends Error {}

/**
 * The events of run `runId` from `after` on, as an async iterable that ends after the terminal event.
 * When a connection breaks (a network failure, a cut, a stream that ends early, a 429 or 5xx) it
 * reconnects with `Last-Event-ID` set to the last seq it delivered, so no event is lost or repeated:
 * at once when the broken connection had delivered a new event, otherwise after a backoff that is never
 * shorter than the server's last `retry:` (on a frame of its own or on a data frame) or `Retry-After`,
 * up to `maxDelayMs`.
 * After `retries + 1` failures in a row without a new event it throws a {@link StreamInterruptedError}.
 * Answers that asking again cannot fix (400, 401, 404, …) throw their {@link ApiError} at once; a
 * 204 (the run finished and nothing is left after `after`) ends the iteration with no event.
 */
export async function* streamRunEvents(
  transport: ClientTransport,
  runId: string,
  options: RunEventsOptions,
  policy: Required<ReconnectOptions>,
): AsyncGenerator<AnyRunEvent, void, undefined> {
  const { signal } = options;
  const route = 'GET /v1/runs/:id/events';
  const named = `GET ${fillPath(route, { id: runId })}`;
  let cursor = checkedAfter(options.after);
  let serverRetryMs = 0;
  /** Connections in a row that failed without delivering a new event. */
  let failures = 0;
  for (;;) {
    let delivered = false;
    let lastFailure: unknown;
    let retryAfterMs = 0;
    try {
      const headers: Record<string, string> = { Accept: 'text/event-stream' };
      if (cursor >= 0) headers['Last-Event-ID'] = String(cursor);
      const response = await send(transport, { route, params: { id: runId }, headers, signal });
      if (response.status === 204) return;
      const contentType = response.headers.get('Content-Type') ?? '';
      if (!contentType.startsWith('text/event-stream') || response.body === null) {
        await response.body?.cancel();
        throw new UnexpectedResponseError(
          `${named} answered ${response.status} with "${contentType}" instead of an event stream; ` +
            'check that the base URL points at a runbridge server.',
        );
      }
      for await (const frame of readSseEvents(response.body, { onRetry: (ms) => (serverRetryMs = ms) })) {
        const event = parseEvent(frame.data, named);
        // A bridge never repeats an event after Last-Event-ID; a proxy that replays is not trusted to.
        if (event.seq <= cursor) continue;
        cursor = event.seq;
        delivered = true;
        // Frames already read stay unread once the caller has aborted.
        signal?.throwIfAborted();
        yield event;
        if (isTerminalRunEvent(event)) return;
      }
      throw new StreamEndedEarly(`the stream ended before the run's terminal event`);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (!isRetryable(error)) throw error;
      lastFailure = error;
      if (error instanceof ApiError) retryAfterMs = (error.retryAfterSeconds ?? 0) * 1000;
    }
    // A connection that brought new events and then broke is resumed at once: the bridge cut a reader
    // that fell behind, or a proxy cut a long stream. Only connections that brought nothing new wait,
    // and only they count towards the bound, so a stream that keeps making progress never gives up.
    if (delivered) {
      failures = 0;
      continue;
    }
    failures += 1;
    if (failures > policy.retries) {
      throw new StreamInterruptedError(
        `The event stream of run ${runId} broke off after seq ${cursor}, and ${failures} connections in a row ` +
          `brought nothing new (last: ${describe(lastFailure)}). Resume later with runs.events(runId, { after: ${cursor} }).`,
        { lastSeq: cursor, cause: lastFailure },
      );
    }
    await sleep(backoffDelayMs(failures - 1, policy, Math.max(serverRetryMs, retryAfterMs)), signal);
  }
}

/** `after` as a cursor: a whole number of -1 or more, or -1 (from the start) when absent. */
function checkedAfter(after: number | undefined): number {
  if (after === undefined) return -1;
  if (!Number.isSafeInteger(after) || after < -1) {
    throw new TypeError(`after must be the seq of an event (a whole number of -1 or more), got ${after}.`);
  }
  return after;
}

/** One frame's data as an event: JSON with a string `event` and a whole-number `seq`, or an {@link UnexpectedResponseError}. */
function parseEvent(data: string, request: string): AnyRunEvent {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    throw new UnexpectedResponseError(`${request} sent a frame whose data is not JSON: ${data.slice(0, 80)}`, {
      cause: error,
    });
  }
  const { event, seq } = (value ?? {}) as { event?: unknown; seq?: unknown };
  if (typeof event !== 'string' || !Number.isSafeInteger(seq)) {
    throw new UnexpectedResponseError(`${request} sent a frame that is not a run event: ${data.slice(0, 80)}`);
  }
  return value as AnyRunEvent;
}

/** True for failures that asking again may cure: no connection, a cut, an early end, a busy or failing server. */
function isRetryable(error: unknown): boolean {
  if (error instanceof ApiError) return RETRYABLE_STATUSES.has(error.status);
  if (error instanceof UnexpectedResponseError) return false;
  // ConnectionError, StreamEndedEarly, and what a body read throws when the connection breaks
  // (undici's "terminated", a browser's network error): all mean the stream went away.
  return error instanceof ConnectionError || error instanceof StreamEndedEarly || error instanceof TypeError;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
