import type { Context } from 'koa';
import type { TaskStream } from '../a2a/a2a-methods.js';
import type { A2aVersion } from '../a2a/a2a-version.js';
import type { RpcId } from '../a2a/json-rpc.js';
import { framesOf, taskFrame } from '../a2a/task-stream-frames.js';
import { contextIdOf, taskAt } from '../a2a/task-view.js';
import { LogReader } from '../runs/log-reader.js';
import { SSE_HEADERS, SSE_KEEPALIVE } from '../sse/sse-headers.js';
import type { AppDeps, AppState } from './app-deps.js';
import { drained } from './drained.js';
import { responseSignal } from './response-signal.js';

/**
 * Serves an A2A task stream (`SendStreamingMessage`, `SubscribeToTask` and their v0.3 names): the task
 * as it stood after the event at `stream.from`, then the updates of every later event of the run's log
 * as it grows, keep-alive comments while nothing happens, and the end after the terminal event (or the
 * caller's turn, for a send). As `streamRunEvents` does for the run formats: the stream holds a slot of
 * `deps.streams` (taken here, so a full house is a JSON-RPC error before anything is written), counts
 * as a subscriber of the run, and a reader whose unsent bytes pass `subscriberBufferBytes` is cut off
 * to resume from its `Last-Event-ID`.
 */
export async function serveTaskStream(
  ctx: Context & { state: AppState },
  deps: AppDeps,
  stream: TaskStream,
  rpcId: RpcId,
  version: A2aVersion,
): Promise<void> {
  const { run, subject, from, endOnInterrupt } = stream;
  const { log } = run;
  const { res } = ctx;
  const slot = deps.streams.acquire(ctx.state.owner);
  const { signal, release } = responseSignal(res, deps.shutdownSignal);
  const closed = deps.telemetry.metrics.streamOpened('a2a');
  const detach = deps.registry.watch(run.record.id);
  const reader = new LogReader(log, deps.config.keepaliveMs, signal);
  try {
    ctx.respond = false;
    res.writeHead(200, SSE_HEADERS);
    res.write(taskFrame({ task: taskAt(subject, log.entries, from) }, rpcId, version, { seq: from }));
    const contextId = contextIdOf(subject);
    let next = from + 1;
    while (!signal.aborted && !res.destroyed) {
      const entries = log.entries;
      if (next < entries.length) {
        if (res.writableLength > deps.config.subscriberBufferBytes) {
          res.destroy();
          return;
        }
        const frames = framesOf({ taskId: run.record.id, contextId, log: entries }, next, rpcId, version, {
          endOnInterrupt,
          caughtUp: next === entries.length - 1,
        });
        next++;
        if (frames.text !== '') res.write(frames.text);
        reader.active();
        if (frames.ends) {
          res.end();
          return;
        }
        if (res.writableNeedDrain) await drained(res, deps.config.keepaliveMs, signal);
        continue;
      }
      // A log that ended with nothing this stream turns into an end (none is left): close.
      if (log.terminal) {
        res.end();
        return;
      }
      const woke = await reader.wait(next);
      // The log stopped following its store: end, so the client resumes.
      if (woke === 'interrupted') return;
      if (woke === 'timeout') {
        res.write(SSE_KEEPALIVE);
        reader.active();
        void deps.registry.touch(run.record.id).catch(() => undefined);
      }
    }
  } finally {
    reader.close();
    detach();
    closed();
    release();
    slot();
    if (!res.writableEnded && !res.destroyed) res.destroy();
  }
}
