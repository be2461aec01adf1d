import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REPLAY_BATCH_BYTES } from '../../src/http/frame-batch.js';
import { SSE_HEADERS } from '../../src/sse/sse-headers.js';

/**
 * The fan-out baseline: a bare `node:http` server that answers every GET as an event stream (the
 * bridge's headers) and writes prepared frames — no log, no routing, no framework: the
 * limit to compare with. It writes the way the bridge does, so only the bridge's overhead differs:
 * `broadcast` sends each burst of frames as one write per held subscriber, with a macrotask pause
 * between bursts (live; the headers go first, on their own); with `replay` set, each new subscriber
 * gets its headers with the first batch and all frames at once in batches of
 * {@link REPLAY_BATCH_BYTES} (imported from the bridge, so the two cannot drift), waiting for
 * `drain` between batches (a finished run).
 */
export interface BareSseServer {
  readonly url: string;
  /** Frames every new subscriber gets at once; while undefined, subscribers are held for `broadcast`. */
  replay: readonly string[] | undefined;
  /** Writes `frames` to every held subscriber in bursts of `burst`, then ends each stream and forgets it. */
  broadcast(frames: readonly string[], burst: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts the baseline on a free loopback port. */
export async function startBareSseServer(): Promise<BareSseServer> {
  let held: ServerResponse[] = [];
  const state: { replay: readonly string[] | undefined } = { replay: undefined };
  const server = createServer((_req, res) => {
    res.writeHead(200, SSE_HEADERS);
    if (state.replay) void replay(res, state.replay);
    else {
      // A held subscriber sees its stream open before the first frame, as the bridge's does.
      res.flushHeaders();
      held.push(res);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/stream`,
    get replay() {
      return state.replay;
    },
    set replay(frames) {
      state.replay = frames;
    },
    async broadcast(frames, burst) {
      const targets = held;
      held = [];
      for (let start = 0; start < frames.length; start += burst) {
        const chunk = frames.slice(start, start + burst).join('');
        for (const res of targets) res.write(chunk);
        await new Promise((resolve) => setImmediate(resolve));
      }
      for (const res of targets) res.end();
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function replay(res: ServerResponse, frames: readonly string[]): Promise<void> {
  let next = 0;
  while (next < frames.length) {
    let batch = '';
    while (next < frames.length && batch.length < REPLAY_BATCH_BYTES) batch += frames[next++];
    res.write(batch);
    if (next < frames.length && res.writableNeedDrain) await once(res, 'drain');
  }
  res.end();
}
