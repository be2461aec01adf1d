import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';
import { eventually } from './eventually.js';

/** A run's event stream followed to its end, through whatever cuts it. */
export interface FollowedRun {
  /** The events so far, in order: each one's seq is its index. */
  readonly events: RunEvent[];
  /** Resolves with the whole log once the terminal event came; rejects when `timeoutMs` passed first. */
  readonly done: Promise<RunEvent[]>;
}

const TERMINAL = new Set(['run.completed', 'run.failed', 'run.cancelled']);

/**
 * Follows run `runId`'s events on `baseUrl` as a client that must see its end would: a stream cut, a
 * 503 while the store is unreachable or a 404 while the run is briefly unknown is answered by asking
 * again after the last event seen (`?after=`), every 100 ms. An event out of order (a gap or a repeat
 * across resumes) fails it.
 */
export function followRun(baseUrl: string, runId: string, { timeoutMs = 60_000 } = {}): FollowedRun {
  const events: RunEvent[] = [];
  const deadline = performance.now() + timeoutMs;
  /** Reads one stream from after the last event seen; resolves with the log once the terminal event came. */
  const readOnce = async (): Promise<RunEvent[] | OrderError> => {
    const response = await fetch(`${baseUrl}/v1/runs/${runId}/events?after=${events.length - 1}`, {
      signal: AbortSignal.timeout(Math.max(1, Math.ceil(deadline - performance.now()))),
    });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new Error(`answered ${response.status}`);
    }
    for await (const frame of readSseEvents(response.body)) {
      const event = RunEventSchema.parse(JSON.parse(frame.data));
      if (event.seq !== events.length) {
        return new OrderError(`run ${runId}: event seq ${event.seq} came after ${events.length - 1}`);
      }
      events.push(event);
      if (TERMINAL.has(event.event)) return events;
    }
    throw new Error('its stream ended before the terminal event');
  };
  const done = eventually(readOnce, `the end of run ${runId} (${timeoutMs} ms)`, { timeoutMs, intervalMs: 100 }).then(
    (result) => {
      if (result instanceof OrderError) throw result;
      return result;
    },
  );
  // Awaited by the test; a rejection left unawaited must not crash the file first.
  done.catch(() => undefined);
  return { events, done };
}

class OrderError extends Error {}
