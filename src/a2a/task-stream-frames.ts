import { formatSseFrame } from '../sse/format-sse-frame.js';
import { isTerminalState, type StreamResponse } from './a2a-schemas.js';
import type { A2aVersion } from './a2a-version.js';
import type { RpcId } from './json-rpc.js';
import { type TaskFrameContext, taskEventsOf } from './task-events.js';
import { streamResponseToV03 } from './v03-wire.js';

/**
 * The SSE frames of a task's stream (docs/a2a.md, "Streams"): each `data:` a JSON-RPC answer to the
 * request (its `id`), its `result` one stream event in the version's shape. The last frame of each
 * run event carries that event's seq as its SSE `id`, so a client that lost the connection resumes with
 * `Last-Event-ID` after the last event it received whole: the events of one run event (the answer's
 * last chunk and the final status) are never split between two connections.
 */
export interface TaskFrames {
  /** The frames of the event at `seq`, and whether the stream ends with them. */
  text: string;
  ends: boolean;
}

/** One frame: `response` answering request `id` in `version`; `final` marks v0.3's last status update. */
export function taskFrame(
  response: StreamResponse,
  rpcId: RpcId,
  version: A2aVersion,
  options: { seq?: number; final?: boolean } = {},
): string {
  const result = version === '1.0' ? response : streamResponseToV03(response, options.final === true);
  return formatSseFrame({
    ...(options.seq === undefined ? {} : { id: options.seq }),
    data: JSON.stringify({ jsonrpc: '2.0', id: rpcId, result }),
  });
}

/**
 * The frames of the run event at `seq`. The stream ends after the run's terminal event, and — for a
 * stream of a send (`endOnInterrupt`) — after an update leaving the task waiting on its caller when
 * no newer event is in the log yet (`caughtUp`): the caller's turn, as the A2A SDKs end it there.
 */
export function framesOf(
  ctx: TaskFrameContext,
  seq: number,
  rpcId: RpcId,
  version: A2aVersion,
  options: { endOnInterrupt: boolean; caughtUp: boolean },
): TaskFrames {
  const updates = taskEventsOf(ctx.log[seq]!, ctx);
  const last = updates.at(-1);
  const state = last !== undefined && 'statusUpdate' in last ? last.statusUpdate.status.state : undefined;
  const ends =
    state !== undefined &&
    (isTerminalState(state) || (options.endOnInterrupt && options.caughtUp && state === 'TASK_STATE_INPUT_REQUIRED'));
  const text = updates
    .map((update, index) => {
      const lastOfEvent = index === updates.length - 1;
      return taskFrame(update, rpcId, version, {
        ...(lastOfEvent ? { seq } : {}),
        final: lastOfEvent && ends,
      });
    })
    .join('');
  return { text, ends };
}
