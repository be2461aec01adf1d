import type { ServerResponse } from 'node:http';
import { LogReader } from '../runs/log-reader.js';
import type { OpenedRun } from '../runs/run-store.js';
import type { StopSignal } from '../sse/stop-signal.js';
import { SSE_DIALECT, StreamWriter } from '../sse/stream-writer.js';
import type { StreamContext, StreamFormat } from './formats/stream-format.js';
import { frameBatch } from './frame-batch.js';

export interface StreamOptions {
  run: OpenedRun;
  /** Counts the subscriber in while it is served, and hears of each keep-alive (a watched run is no orphan). */
  runs: { watch(id: string): () => void; touch(id: string): Promise<void> };
  res: ServerResponse;
  format: StreamFormat;
  context: StreamContext;
  /** Send events with `seq > after`; -1 sends the whole log. */
  after: number;
  keepaliveMs: number;
  /** A subscriber whose unsent bytes pass this bound is disconnected; it resumes from its cursor. */
  bufferBytes: number;
  /** Ends the stream early (client gone, server stopping). */
  signal: StopSignal;
}

/**
 * Serves one subscriber: opens the stream at once (headers, with the first frames when there are any), then writes every event after its
 * cursor as the log grows — the first frame with data also carrying `retry:` — a keep-alive comment whenever `keepaliveMs` pass with nothing written (inside the wait loop, so a
 * model or tool silent for minutes still keeps the connection alive), and ends the response after the
 * terminal event. The run never waits for this loop: a subscriber that stops reading is cut off when
 * its unsent bytes pass `bufferBytes` (checked before each write, so one event larger than the bound
 * still reaches a reader that keeps up); one catching up on a long log is paced by `drain`.
 */
export async function streamRunEvents(options: StreamOptions): Promise<void> {
  const { run, runs, res, format, context, keepaliveMs, bufferBytes, signal } = options;
  const { log } = run;
  // The headers go out with the first frames, or on their own before the first wait: a client must
  // see the stream open even before the first event (a queued run's subscriber hears only
  // keep-alives until it starts).
  const out = new StreamWriter(res, { dialect: SSE_DIALECT, headers: format.headers, bufferBytes });
  const detach = runs.watch(run.record.id);
  const reader = new LogReader(log, keepaliveMs, signal);
  try {
    let next = options.after + 1;
    /** The reader reached the end of the live log once: from then on the run's pace is its pace. */
    let caughtUp = false;
    while (!signal.aborted && !out.closed) {
      const entries = log.entries;
      if (next < entries.length) {
        if (!out.keepsUp()) return;
        const { to, bytes } = frameBatch(entries, format, context, next);
        next = to;
        out.write(bytes);
        reader.active();
        // More is waiting: let the socket drain before the next batch (a fast reader catches up
        // at once). One that had caught up with a live run is pushed at the run's pace instead: it
        // gets the next batch at the log's next wake too, so one that stops reading is cut off as the
        // run outgrows it (a wake may carry more than a batch, `RUNBRIDGE_STREAM_FLUSH_SECONDS`), and
        // one that falls behind is cut off and resumes, to catch up at its own pace.
        if (next < entries.length) {
          await out.paced(keepaliveMs, signal, caughtUp && !log.terminal ? log.nextWake() : undefined);
        }
        continue;
      }
      const terminal = log.terminal;
      if (terminal) {
        out.end(format.end(terminal, context));
        return;
      }
      out.open();
      caughtUp = true;
      const woke = await reader.wait(next);
      // The log stopped following its store (docs/deployment.md): end, so the client resumes.
      if (woke === 'interrupted') return;
      if (woke === 'timeout') {
        out.keepAlive();
        reader.active();
        void runs.touch(run.record.id).catch(() => undefined);
      }
    }
  } finally {
    reader.close();
    detach();
    out.close();
  }
}
