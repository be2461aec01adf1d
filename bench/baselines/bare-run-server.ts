import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SSE_HEADERS, SSE_RETRY_LINE } from '../../src/sse/sse-headers.js';

/**
 * The time-to-first-event baseline: a bare `node:http` server with the two exchanges of the bridge's
 * API — `POST /v1/runs` answers 202 with a run's JSON, and `GET /v1/runs/:id/events` answers the
 * bridge's headers and a prepared `run.started` frame (with its `retry:` line), then ends. Nothing is validated,
 * stored or run: the least a server can do to answer the same two requests.
 */
export interface BareRunServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the baseline on a free loopback port; `startedFrame` is written to every stream. */
export async function startBareRunServer(startedFrame: string): Promise<BareRunServer> {
  let serial = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => {
      if (req.method === 'POST') {
        const id = `run_bare${serial++}`;
        const body = JSON.stringify({
          run_id: id,
          status: 'running',
          events_url: `/v1/runs/${id}/events`,
          created_at: Date.now() / 1000,
        });
        res.writeHead(202, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          location: `/v1/runs/${id}`,
        });
        res.end(body);
        return;
      }
      res.writeHead(200, SSE_HEADERS);
      res.end(SSE_RETRY_LINE + startedFrame);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
