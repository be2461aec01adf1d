import type { Context } from 'koa';
import type { TaskStream } from '../a2a/a2a-methods.js';
import type { A2aVersion } from '../a2a/a2a-version.js';
import type { RpcId } from '../a2a/json-rpc.js';
import { framesOf, taskFrame } from '../a2a/task-stream-frames.js';
import { contextIdOf, taskAt } from '../a2a/task-view.js';
import { LogReader } from '../runs/log-reader.js';
import { SSE_DIALECT, StreamWriter } from '../sse/stream-writer.js';
import type { AppDeps, AppState } from './app-deps.js';
import { serveStream } from './serve-stream.js';

/**
 * Serves an A2A task stream (`SendStreamingMessage`, `SubscribeToTask` and their v0.3 names): the task
 * as it stood after the event at `stream.from`, then the updates of every later event of the run's log
 * as it grows, keep-alive comments while nothing happens, and the end after the terminal event (or the
 * caller's turn, for a send). Written as every stream is (`serveStream`, `StreamWriter`): the stream
 * holds a slot of `deps.streams` (taken before anything is written, so a full house is a JSON-RPC error),
 * counts as a subscriber of the run, and a reader whose unsent bytes pass `subscriberBufferBytes` is cut
 * off to resume from its `Last-Event-ID`.
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
  await serveStream(ctx, deps, 'a2a', async (signal) => {
    const writer = new StreamWriter(ctx.res, { dialect: SSE_DIALECT, bufferBytes: deps.config.subscriberBufferBytes });
    const detach = deps.registry.watch(run.record.id);
    const reader = new LogReader(log, deps.config.keepaliveMs, signal);
    try {
      writer.write(taskFrame({ task: taskAt(subject, log.entries, from) }, rpcId, version, { seq: from }));
      const contextId = contextIdOf(subject);
      let next = from + 1;
      while (!signal.aborted && !writer.closed) {
        const entries = log.entries;
        if (next < entries.length) {
          if (!writer.keepsUp()) return;
          const frames = framesOf({ taskId: run.record.id, contextId, log: entries }, next, rpcId, version, {
            endOnInterrupt,
            caughtUp: next === entries.length - 1,
          });
          next++;
          writer.write(frames.text);
          reader.active();
          if (frames.ends) {
            writer.end();
            return;
          }
          await writer.paced(deps.config.keepaliveMs, signal);
          continue;
        }
        // A log that ended with nothing this stream turns into an end (none is left): close.
        if (log.terminal) {
          writer.end();
          return;
        }
        const woke = await reader.wait(next);
        // The log stopped following its store: end, so the client resumes.
        if (woke === 'interrupted') return;
        if (woke === 'timeout') {
          writer.keepAlive();
          reader.active();
          void deps.registry.touch(run.record.id).catch(() => undefined);
        }
      }
    } finally {
      reader.close();
      detach();
      writer.close();
    }
  });
}
