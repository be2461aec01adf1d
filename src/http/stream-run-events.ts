import type { ServerResponse } from 'node:http';
import { LogReader, type StopSignal } from '../runs/log-reader.js';
import type { OpenedRun } from '../runs/run-store.js';
import { SSE_HEADERS, SSE_KEEPALIVE, SSE_RETRY_LINE } from '../sse/sse-headers.js';
import { drained } from './drained.js';
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
  const detach = runs.watch(run.record.id);
  const reader = new LogReader(log, keepaliveMs, signal);
  // Whether the headers went out: `res.headersSent` says so from `writeHead` on, sent or not.
  let opened = false;
  /** Sends the headers on their own unless a write took them already. */
  const open = (): void => {
    if (opened) return;
    opened = true;
    res.flushHeaders();
  };
  try {
    // The headers go out with the first frames, or on their own before the first wait: a client must
    // see the stream open even before the first event (a queued run's subscriber hears only
    // keep-alives until it starts), but a stream with frames to send at once — a replay — costs one
    // socket write instead of two (`bench/`, benchmark 1: new subscribers of a finished run).
    res.writeHead(200, { ...SSE_HEADERS, ...format.headers });
    let next = options.after + 1;
    let retrySent = false;
    /** The reader reached the end of the live log once: from then on the run's pace is its pace. */
    let caughtUp = false;
    /** Writes frames; before the first that has data, the `retry:` line (never a frame of its own). */
    const writeFrames = (frames: string | Buffer): void => {
      if (frames.length === 0) return;
      if (!retrySent) res.write(SSE_RETRY_LINE);
      retrySent = true;
      opened = true;
      res.write(frames);
    };
    while (!signal.aborted && !res.destroyed) {
      const entries = log.entries;
      if (next < entries.length) {
        // Judged before writing more: a reader still holding over the bound unsent has stopped
        // reading and is cut off (it resumes from its cursor), while an event larger than the bound
        // (a long final answer in run.completed) still goes out whole to a reader that keeps up.
        if (res.writableLength > bufferBytes) {
          res.destroy();
          return;
        }
        const { to, bytes } = frameBatch(entries, format, context, next);
        next = to;
        writeFrames(bytes);
        reader.active();
        // More is waiting: let the socket drain before the next batch (a fast reader catches up
        // at once). A reader that does not drain within a keep-alive period gets the next batch
        // anyway, so one that stopped reading mid-replay reaches the bound and is cut off instead
        // of holding its connection, and its run's subscriber count, forever. One that had caught
        // up with a live run is pushed at the run's pace instead: it gets the next batch at the log's
        // next wake too, so one that stops reading is cut off as the run outgrows it (a wake may carry
        // more than a batch, `RUNBRIDGE_STREAM_FLUSH_SECONDS`), and one that falls behind is cut off
        // and resumes, to catch up at its own pace.
        if (next < entries.length && res.writableNeedDrain) {
          await drained(res, keepaliveMs, signal, caughtUp && !log.terminal ? log.nextWake() : undefined);
        }
        continue;
      }
      const terminal = log.terminal;
      if (terminal) {
        writeFrames(format.end(terminal, context));
        res.end();
        return;
      }
      open();
      caughtUp = true;
      const woke = await reader.wait(next);
      // The log stopped following its store (docs/deployment.md): end, so the client resumes.
      if (woke === 'interrupted') return;
      if (woke === 'timeout') {
        res.write(SSE_KEEPALIVE);
        reader.active();
        void runs.touch(run.record.id).catch(() => undefined);
      }
    }
  } finally {
    reader.close();
    detach();
    if (!res.writableEnded && !res.destroyed) {
      // As before the first wait: the stream was open, then it ended.
      open();
      res.destroy();
    }
  }
}
