import type { ServerResponse } from 'node:http';
import { formatSseFrame } from '../../sse/format-sse-frame.js';
import { SSE_HEADERS } from '../../sse/sse-headers.js';
import { chunkResult } from './chunk-result.js';
import type { ToolTask, ToolTaskOutcome, ToolTaskStore } from './tool-task-store.js';

export interface CallStreamOptions {
  /** Period of the `: ping - <timestamp>` comment while the tool runs. */
  pingIntervalMs: number;
  /** Longest `data` of one `chunk`/`end` frame, in UTF-16 code units. */
  chunkSize: number;
}

/**
 * Answers a `/{env}/call` with `task`'s SSE stream: the headers and `event: task_id` at once, a ping
 * comment every `pingIntervalMs` while the tool runs, then the result JSON as `chunk`* + `end` (cut by
 * {@link chunkResult}) or a server failure as a lone `event: error`, and the end of the response.
 * A task that has already finished is answered at once. Resolves when the response has ended or the
 * client went away; a client going away stops the pings, never the tool.
 */
export function streamToolTask(
  res: ServerResponse,
  task: ToolTask,
  tasks: ToolTaskStore,
  options: CallStreamOptions,
): Promise<void> {
  return new Promise((resolve) => {
    // The client may have gone while the request waited for setup: its 'close' has passed, so nothing
    // would end the pings. The task runs on regardless; a reconnect can collect it.
    if (res.destroyed) {
      resolve();
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    res.write(formatSseFrame({ event: 'task_id', data: task.id }));
    let done = false;
    let ping: NodeJS.Timeout | undefined;
    let stopListening = () => {};
    const finish = () => {
      if (done) return;
      done = true;
      clearInterval(ping);
      stopListening();
      res.off('close', finish);
      resolve();
    };
    res.on('close', finish);
    stopListening = tasks.onOutcome(task, (outcome) => {
      if (done) return;
      res.end(outcomeFrames(outcome, options.chunkSize));
      finish();
    });
    if (!done) {
      ping = setInterval(
        () => res.write(formatSseFrame({ comment: `ping - ${pingTimestamp()}` })),
        options.pingIntervalMs,
      );
    }
  });
}

/** Answers a `/{env}/call` with a lone `event: error` (no `task_id`, no `end`), as the reference does for an unknown task id. */
export function streamCallError(res: ServerResponse, message: string): void {
  res.writeHead(200, SSE_HEADERS);
  res.end(formatSseFrame({ event: 'error', data: message }));
}

function outcomeFrames(outcome: ToolTaskOutcome, chunkSize: number): string {
  if (outcome.kind === 'error') return formatSseFrame({ event: 'error', data: outcome.message });
  const pieces = chunkResult(outcome.json, chunkSize);
  return pieces
    .map((piece, index) => formatSseFrame({ event: index === pieces.length - 1 ? 'end' : 'chunk', data: piece }))
    .join('');
}

/** Now as Python prints an aware UTC datetime (`2025-01-31 12:00:00.123000+00:00`), the reference server's ping text. */
function pingTimestamp(): string {
  return new Date().toISOString().replace('T', ' ').replace('Z', '000+00:00');
}
