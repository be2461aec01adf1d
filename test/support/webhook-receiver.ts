import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook request as the receiver got it. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with its `n`th request (0-based): answer a status, redirect, or never answer. */
export type Reply = number | 'hang' | { redirect: string };

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  received: Received[];
  /** The most requests it held open at once. */
  maxConcurrent: number;
  /** Resolves once `count` requests have arrived (fails after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/**
 * A real HTTP receiver on loopback for webhook tests: `reply(n, request)` decides each answer
 * (default 204); `holdMs` keeps each request open that long before answering (to overlap them).
 */
export async function startWebhookReceiver(
  reply: (n: number, request: Received) => Reply = () => 204,
  holdMs = 0,
): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  let open = 0;
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const n = received.push(request) - 1;
      for (const wake of waiters.splice(0)) wake();
      receiver.maxConcurrent = Math.max(receiver.maxConcurrent, ++open);
      res.on('close', () => open--);
      const answer = reply(n, request);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      setTimeout(() => {
        if (typeof answer === 'number') res.writeHead(answer).end();
        else res.writeHead(302, { location: answer.redirect }).end();
      }, holdMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: WebhookReceiver = {
    url: `http://127.0.0.1:${port}`,
    received,
    maxConcurrent: 0,
    async waitFor(count, timeoutMs = 20_000) {
      // Each arrival wakes the waiters; the timer only bounds the wait, so a failure names the count.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`the receiver got ${received.length} of ${count} requests`)),
          timeoutMs,
        );
      });
      try {
        while (received.length < count) await Promise.race([new Promise<void>((wake) => waiters.push(wake)), late]);
      } finally {
        clearTimeout(timer);
      }
      return received.slice(0, count);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}
