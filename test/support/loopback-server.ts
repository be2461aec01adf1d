import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** A server on a free loopback port that counts what reaches it. */
export interface LoopbackServer {
  url: string;
  /** TCP connections accepted so far. */
  connections(): number;
  /** TCP connections accepted and not yet closed. */
  open(): number;
  /** Requests received so far. */
  requests(): number;
  /** Drops every connection and stops listening. */
  close(): Promise<void>;
}

/** Serves each request with `handler` once its whole body (as text) has arrived. */
export async function serveLoopback(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<LoopbackServer> {
  let connections = 0;
  let open = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => handler(req, res, body));
  });
  server.on('connection', (socket) => {
    connections++;
    open++;
    socket.once('close', () => open--);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    open: () => open,
    requests: () => requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** {@link serveLoopback} for the running test, which stops it when the test finishes. */
export async function serveLoopbackInTest(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<LoopbackServer> {
  const server = await serveLoopback(handler);
  onTestFinished(server.close);
  return server;
}
