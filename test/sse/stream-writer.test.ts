import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { formatSseFrame } from '../../src/sse/format-sse-frame.js';
import { SSE_DIALECT, type StreamDialect, StreamWriter } from '../../src/sse/stream-writer.js';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

/** What a client reads, headers and body, of a response that `serve` writes. */
async function read(serve: (res: ServerResponse) => void): Promise<{ headers: Headers; body: string }> {
  const server = createServer((_req, res) => serve(res));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  return { headers: response.headers, body: await response.text() };
}

describe('StreamWriter', () => {
  it("sends SSE's headers with a format's own, the retry line before the first write only, and lone keep-alive comments", async () => {
    const { headers, body } = await read((res) => {
      const out = new StreamWriter(res, {
        dialect: SSE_DIALECT,
        headers: { 'x-vercel-ai-ui-message-stream': 'v1' },
        bufferBytes: 1024,
      });
      out.open();
      out.keepAlive();
      out.write(formatSseFrame({ id: 0, data: '{}' }));
      out.write('');
      out.keepAlive();
      out.end(formatSseFrame({ id: 1, data: '{}' }));
    });
    expect(headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect(body).toBe(': keepalive\nretry: 3000\nid: 0\ndata: {}\n\n: keepalive\nid: 1\ndata: {}\n\n');
  });

  it("writes another dialect's keep-alive, and nothing before its first line when it has no first line", async () => {
    const lines: StreamDialect = { headers: { 'Content-Type': 'application/x-ndjson' }, first: '', keepalive: '\n' };
    const { body } = await read((res) => {
      let now = 0;
      const out = new StreamWriter(res, { dialect: lines, bufferBytes: 1024, now: () => now });
      out.write('{"a":1}\n');
      now = 999;
      out.keepAliveIfQuiet(1000);
      now = 1000;
      out.keepAliveIfQuiet(1000);
      out.end();
    });
    expect(body).toBe('{"a":1}\n\n');
  });
});
