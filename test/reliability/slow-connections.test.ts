import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Slow clients (docs/security.md, "Caps"): connections that send their headers a byte at a time
 * (slowloris) neither fill the server nor keep `/health` or a keyed request of the same address out, and
 * each is closed once its headers are overdue.
 */
const KEY = 'slow-connections-test-key';
const CAP = 20;

describe('slow connections from one address', () => {
  let bridge: TestBridge;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    bridge = await startTestBridge(
      {
        RUNBRIDGE_API_KEYS: KEY,
        // Fewer than the slow connections below: without the cap per address they would take them all.
        RUNBRIDGE_MAX_CONNECTIONS: String(CAP + 10),
        RUNBRIDGE_MAX_CONNECTIONS_PER_ADDRESS: String(CAP),
        RUNBRIDGE_HEADERS_TIMEOUT_SECONDS: '1',
      },
      { apiKey: KEY },
    );
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await bridge?.shutdown();
  });

  /** Opens a connection that starts a request and then sends nothing more: headers that never end. */
  async function slowloris(): Promise<Socket> {
    const { port } = new URL(bridge.url);
    const socket = connect(Number(port), '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => undefined);
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    return socket;
  }

  it('answers /health and a keyed request while many times its cap of slow connections are open', async () => {
    const slow = await Promise.all(Array.from({ length: CAP * 3 }, () => slowloris()));
    const health = await bridge.fetch('/health', { signal: AbortSignal.timeout(5000) });
    expect(health.status).toBe(200);
    const runs = await bridge.fetch('/v1/runs?limit=1', { signal: AbortSignal.timeout(5000) });
    expect(runs.status).toBe(200);
    // The address holds no more than its cap: the oldest slow ones gave way.
    await expect.poll(() => slow.filter((socket) => !socket.closed).length, { timeout: 5000 }).toBeLessThanOrEqual(CAP);
  });

  it('closes a connection whose headers are overdue, with a 408', async () => {
    const socket = await slowloris();
    let answer = '';
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString();
    });
    await new Promise<void>((resolve) => socket.once('close', () => resolve()));
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });
});
