import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRollout } from '../support/rollout-client.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { deferred } from '../support/test-environment.js';

/** Keeps each connection open after its answer, as a browser or an HTTP client library does. */
const agent = new Agent({ keepAlive: true });

/** A `HEAD` request's status and headers, and the bytes of body that came with it (none is due). */
function head(url: string): Promise<{ status: number; type: string | undefined; body: number }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'HEAD', agent }, (res) => {
      let body = 0;
      res.on('data', (chunk: Buffer) => (body += chunk.length));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * `HEAD` on a stream (docs/api.md, "Event streams"): the stream's headers and no body, at once, and no
 * stream slot held — a client probing a URL never waits on a run, nor takes a stream from anyone.
 */
describe('HEAD on an event stream', () => {
  let bridge: TestBridge;
  const gate = deferred();

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_MAX_STREAMS_PER_KEY: '2', RUNBRIDGE_MAX_CONCURRENT_RUNS: '1' },
      { providers: [scriptedProvider({ held: [{ gate: gate.promise, text: 'done' }] })] },
    );
  });
  afterAll(async () => {
    agent.destroy();
    gate.resolve(undefined);
    await bridge?.shutdown();
  });

  it("answers a running run's events with the stream's headers, and holds no slot", async () => {
    const url = `${bridge.url}/v1/runs/${await bridge.startRun({ model: 'scripted:held' })}/events`;
    for (let i = 0; i < 5; i++) {
      expect(await head(url)).toEqual({ status: 200, type: 'text/event-stream; charset=utf-8', body: 0 });
    }
    expect(await head(`${url}?format=openai`)).toMatchObject({ status: 200, body: 0 });
    // Five HEADs past a cap of two: a GET still gets its stream.
    const controller = new AbortController();
    const stream = await fetch(url, { signal: controller.signal });
    expect(stream.status).toBe(200);
    controller.abort();
  });

  it("answers a batch's records with the stream's headers while its pairs wait, and holds no slot", async () => {
    // The one run slot is held by a gated run: the batch's pair waits in the queue.
    await bridge.startRun({ model: 'scripted:held' });
    const id = await startRollout(bridge.fetch, { env: 'arith', tasks: '0', samples: 1, model: 'offline' });
    for (let i = 0; i < 5; i++) {
      expect(await head(`${bridge.url}/v1/rollouts/${id}/records`)).toEqual({
        status: 200,
        type: 'application/x-ndjson; charset=utf-8',
        body: 0,
      });
    }
    const controller = new AbortController();
    const stream = await fetch(`${bridge.url}/v1/rollouts/${id}/records`, { signal: controller.signal });
    expect(stream.status).toBe(200);
    controller.abort();
  });
});
