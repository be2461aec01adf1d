import { once } from 'node:events';
import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { deferred } from '../support/test-environment.js';

/** An event stream opened with node:http and left unread; `close()` ends it from the client side. */
interface OpenStream {
  status: number;
  retryAfter: string | undefined;
  body: Promise<string>;
  close(): void;
}

function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(url, { headers, agent: false }, (res: IncomingMessage) => {
      const chunks: string[] = [];
      res.setEncoding('utf8').on('data', (text: string) => chunks.push(text));
      const body = new Promise<string>((done) => res.on('close', () => done(chunks.join(''))));
      const retryAfter = res.headers['retry-after'];
      resolve({
        status: res.statusCode ?? 0,
        retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
        body,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Checks that `GET /health` answers 200. */
async function expectHealthy(bridge: TestBridge): Promise<void> {
  const response = await fetch(`${bridge.url}/health`);
  expect(response.status).toBe(200);
  await response.json();
}

/**
 * Open event streams are capped in total and per key (docs/security.md, "Caps"): past a cap a new
 * stream is a 429 with `Retry-After`, and the server keeps answering everything else.
 */
describe('caps on open event streams', () => {
  let bridge: TestBridge;
  const gate = deferred();
  const streams: OpenStream[] = [];
  /** The API key named `name` (keys need 16 characters). */
  const keyOf = (name: string) => `${name}-0123456789abcdef`;
  const key = (name: string) => ({ Authorization: `Bearer ${keyOf(name)}` });

  beforeAll(async () => {
    bridge = await startTestBridge(
      {
        RUNBRIDGE_API_KEYS: ['k1', 'k2', 'k3'].map(keyOf).join(','),
        RUNBRIDGE_MAX_STREAMS: '30',
        RUNBRIDGE_MAX_STREAMS_PER_KEY: '12',
      },
      { apiKey: keyOf('k1'), providers: [scriptedProvider({ held: [{ gate: gate.promise, text: 'done' }] })] },
    );
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    gate.resolve(undefined);
    await bridge.shutdown();
  });

  /** Runs of each key, held open by the gated model, whose events URL a test subscribes to. */
  async function heldRun(name: string): Promise<string> {
    const response = await fetch(`${bridge.url}/v1/runs`, {
      method: 'POST',
      headers: { ...key(name), 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'scripted:held' }),
    });
    expect(response.status).toBe(202);
    return `${bridge.url}${((await response.json()) as { events_url: string }).events_url}`;
  }

  async function open(url: string, name: string): Promise<OpenStream> {
    const stream = await openStream(url, key(name));
    streams.push(stream);
    return stream;
  }

  it('refuses the stream past the per-key cap with 429 and Retry-After, while other keys and /health go on', async () => {
    const [one, two] = [await heldRun('k1'), await heldRun('k2')];
    for (let i = 0; i < 12; i++) expect((await open(one, 'k1')).status).toBe(200);
    const refused = await open(one, 'k1');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('5');
    expect(JSON.parse(await refused.body)).toMatchObject({
      error: { code: 'too_many_streams', message: expect.stringContaining('RUNBRIDGE_MAX_STREAMS_PER_KEY') },
    });
    expect((await open(two, 'k2')).status).toBe(200);
    await expectHealthy(bridge);
    // A slot comes back when its stream closes.
    streams[0]!.close();
    await streams[0]!.body;
    await eventually(async () => (await open(one, 'k1')).status === 200, 'the slot given back');
  });

  it('refuses any stream past the total cap, and a streamed chat completion before its run exists', async () => {
    const urls = [await heldRun('k1'), await heldRun('k2'), await heldRun('k3')];
    const statuses: number[] = [];
    for (let i = 0; i < 33; i++) statuses.push((await open(urls[i % 3]!, `k${(i % 3) + 1}`)).status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(30);
    expect(statuses.slice(30)).toEqual([429, 429, 429]);
    const runsBefore = bridge.registry.localStats();
    const chat = await fetch(`${bridge.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...key('k3'), 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'offline', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(chat.status).toBe(429);
    expect(await chat.json()).toMatchObject({ error: { code: 'too_many_streams' } });
    expect(bridge.registry.localStats()).toEqual(runsBefore);
    await expectHealthy(bridge);
  });
});

describe('a crowd of idle streams on one run, with the default caps', () => {
  it('gets 1,000 streams and 429s for the rest, and /health keeps answering', async () => {
    const gate = deferred();
    const bridge = await startTestBridge({}, { providers: [scriptedProvider({ held: [{ gate: gate.promise }] })] });
    const open: OpenStream[] = [];
    try {
      const url = `${bridge.url}/v1/runs/${await bridge.startRun({ model: 'scripted:held' })}/events`;
      await expectHealthy(bridge);
      const statuses = new Map<number, number>();
      // In waves, as a crowd arrives: 1,300 streams of the one local owner.
      for (let wave = 0; wave < 13; wave++) {
        const answers = await Promise.all(Array.from({ length: 100 }, () => openStream(url)));
        for (const answer of answers) {
          open.push(answer);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        }
      }
      expect(Object.fromEntries(statuses)).toEqual({ 200: 1000, 429: 300 });
      await expectHealthy(bridge);
      expect(bridge.registry.localStats().subscribers).toBe(1000);
    } finally {
      for (const stream of open) stream.close();
      gate.resolve(undefined);
      await bridge.shutdown();
    }
  }, 120_000);
});

/** Sends `GET /health` on `socket`, keeping the connection alive, and resolves once the answer's head came. */
async function answeredOn(socket: Socket): Promise<void> {
  socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const [head] = (await once(socket, 'data')) as [Buffer];
  expect(head.toString('latin1')).toMatch(/^HTTP\/1\.1 200 /);
}

describe('the connection limit', () => {
  it('closes connections past RUNBRIDGE_MAX_CONNECTIONS at once, and serves again when they go', async () => {
    const bridge = await startTestBridge({ RUNBRIDGE_MAX_CONNECTIONS: '20', RUNBRIDGE_MAX_STREAMS: '10' });
    const sockets: Socket[] = [];
    try {
      const { port } = new URL(bridge.url);
      for (let i = 0; i < 20; i++) {
        const socket = connect(Number(port), '127.0.0.1');
        await once(socket, 'connect');
        sockets.push(socket);
      }
      // One answer on each, kept alive and idle after it: the server has taken all 20 before the one too many.
      await Promise.all(sockets.map((socket) => answeredOn(socket)));
      const extra = connect(Number(port), '127.0.0.1');
      extra.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      let answered = '';
      extra.setEncoding('utf8').on('data', (text: string) => (answered += text));
      await once(extra, 'close');
      expect(answered).toBe('');
      for (const socket of sockets.splice(0)) socket.destroy();
      await eventually(async () => (await fetch(`${bridge.url}/health`)).status === 200, '/health served again');
    } finally {
      for (const socket of sockets) socket.destroy();
      await bridge.shutdown();
    }
  });
});
