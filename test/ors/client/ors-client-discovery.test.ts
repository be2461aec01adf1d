import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OrsError } from '../../../src/errors.js';
import { OrsClient } from '../../../src/ors/client/ors-client.js';
import { type OrsTestRig, rejectionOf, startOrsTestRig, TEST_CLIENT_OPTIONS } from '../../support/ors-test-rig.js';

describe('OrsClient discovery', () => {
  let rig: OrsTestRig;
  beforeEach(async () => {
    rig = await startOrsTestRig();
  });
  afterEach(async () => {
    await rig.close();
  });

  it('reads health and the environment list', async () => {
    expect(await rig.client.health()).toEqual({ status: 'ok' });
    expect(await rig.client.listEnvironments()).toEqual(['arith']);
  });

  it('reads the shared tools with absent keys filled in, and the splits', async () => {
    const tools = await rig.client.tools('arith');
    expect(tools.map((tool) => tool.name)).toEqual(['submit']);
    expect(tools[0]?.input_schema).toMatchObject({ required: ['answer'] });
    expect(await rig.client.splits('arith')).toEqual([
      { name: 'train', type: 'train' },
      { name: 'test', type: 'test' },
    ]);
  });

  it('reads no task schema from a server without the task_schema extension (it answers 404)', async () => {
    expect(await rig.client.taskSchema('arith')).toBeUndefined();
  });

  it('reads tasks, their count, one task and a range with Python slice rules', async () => {
    expect(await rig.client.tasks('arith', 'test')).toEqual([{ a: 1, b: 1 }]);
    expect(await rig.client.numTasks('arith', 'train')).toBe(3);
    expect(await rig.client.task('arith', 'train', 1)).toEqual({ a: 5, b: 7 });
    expect(await rig.client.taskRange('arith', 'train', { start: -2 })).toEqual([
      { a: 5, b: 7 },
      { a: 10, b: 20 },
    ]);
    expect(await rig.client.taskRange('arith', 'train', { stop: 1 })).toEqual([{ a: 2, b: 3 }]);
    expect(rig.server.requestsTo('/arith/task_range').map((request) => request.body)).toEqual([
      { split: 'train', start: -2 },
      { split: 'train', stop: 1 },
    ]);
  });

  it('answers unknown_env (status 404) from every environment endpoint of an unknown environment', async () => {
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['GET /nope/tools', () => rig.client.tools('nope')],
      ['GET /nope/splits', () => rig.client.splits('nope')],
      ['POST /nope/tasks', () => rig.client.tasks('nope', 'train')],
      ['POST /nope/num_tasks', () => rig.client.numTasks('nope', 'train')],
      ['POST /nope/task', () => rig.client.task('nope', 'train', 0)],
      ['POST /nope/task_range', () => rig.client.taskRange('nope', 'train', {})],
    ];
    for (const [endpoint, call] of calls) {
      const error = await rejectionOf(call());
      expect(error).toBeInstanceOf(OrsError);
      expect(error).toMatchObject({ code: 'unknown_env', status: 404 });
      expect((error as Error).message).toContain(endpoint);
    }
  });

  it('answers invalid_task (status 400) for an unknown split or an index out of range', async () => {
    await expect(rig.client.numTasks('arith', 'nosuch')).rejects.toMatchObject({ code: 'invalid_task', status: 400 });
    const error = await rejectionOf(rig.client.task('arith', 'train', 99));
    expect(error).toMatchObject({ code: 'invalid_task', status: 400, details: { detail: 'Invalid index' } });
  });

  it('retries a 503 and succeeds once the server recovers', async () => {
    rig.proxy.inject({ path: '/list_environments', fault: { type: 'status', status: 503 }, times: 2 });
    expect(await rig.client.listEnvironments()).toEqual(['arith']);
    expect(rig.proxy.requestsTo('/list_environments').map((request) => request.fault)).toEqual([
      'status',
      'status',
      undefined,
    ]);
  });

  it('gives up with ors_unavailable after the configured retries', async () => {
    rig.proxy.inject({ path: '/health', fault: { type: 'status', status: 502, detail: 'bad gateway' }, times: 10 });
    const error = await rejectionOf(rig.client.health());
    expect(error).toMatchObject({
      code: 'ors_unavailable',
      details: { endpoint: 'GET /health', attempts: 4, status: 502 },
    });
    expect((error as Error).message).toContain('bad gateway');
    expect(rig.proxy.requestsTo('/health')).toHaveLength(4);
  });

  it('does not retry a 4xx other than 429 and reports it as ors_request_rejected', async () => {
    rig.proxy.inject({ path: '/health', fault: { type: 'status', status: 403, detail: 'forbidden here' } });
    const error = await rejectionOf(rig.client.health());
    expect(error).toMatchObject({
      code: 'ors_request_rejected',
      details: { endpoint: 'GET /health', status: 403, detail: 'forbidden here' },
    });
    expect(rig.proxy.requestsTo('/health')).toHaveLength(1);
  });

  it('retries a 429', async () => {
    rig.proxy.inject({ path: '/health', fault: { type: 'status', status: 429, retryAfter: '0' } });
    expect(await rig.client.health()).toEqual({ status: 'ok' });
    expect(rig.proxy.requestsTo('/health')).toHaveLength(2);
  });

  it('rejects with the signal reason, and sends nothing more, when aborted while a retry is pending', async () => {
    const client = new OrsClient({
      ...TEST_CLIENT_OPTIONS,
      baseUrl: rig.proxy.url,
      retryBaseDelayMs: 600_000,
      retryMaxDelayMs: 600_000,
    });
    rig.proxy.inject({ path: '/health', fault: { type: 'status', status: 503 }, times: 10 });
    const controller = new AbortController();
    const reason = new Error('run cancelled');
    const health = client.health(controller.signal);
    await rig.proxy.waitForRequest((request) => request.path === '/health');
    controller.abort(reason);
    expect(await rejectionOf(health)).toBe(reason);
    expect(rig.proxy.requestsTo('/health')).toHaveLength(1);
  });
});

describe('OrsClient responses that are not ORS', () => {
  let server: http.Server;
  let baseUrl: string;
  let body = '';
  beforeEach(async () => {
    server = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('reports malformed JSON as ors_bad_response naming the endpoint', async () => {
    body = '<html>hello</html>';
    const error = await rejectionOf(new OrsClient({ ...TEST_CLIENT_OPTIONS, baseUrl }).listEnvironments());
    expect(error).toMatchObject({ code: 'ors_bad_response' });
    expect((error as Error).message).toMatch(/^GET \/list_environments: .*malformed JSON/);
  });

  it('reports a schema mismatch as ors_bad_response naming the offending field', async () => {
    body = JSON.stringify({ tools: [{ name: 'ok' }, { name: 7 }] });
    const error = await rejectionOf(new OrsClient({ ...TEST_CLIENT_OPTIONS, baseUrl }).tools('arith'));
    expect(error).toMatchObject({ code: 'ors_bad_response', details: { endpoint: 'GET /arith/tools' } });
    expect((error as Error).message).toMatch(/^GET \/arith\/tools: tools\.1\.name: .*expected string/);
  });
});

describe('OrsClient against nothing', () => {
  it('retries a refused connection and then reports ors_unavailable', async () => {
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const client = new OrsClient({ ...TEST_CLIENT_OPTIONS, baseUrl: `http://127.0.0.1:${port}/` });
    const error = await rejectionOf(client.health());
    expect(error).toMatchObject({ code: 'ors_unavailable', details: { attempts: 4 } });
    expect((error as Error).message).toContain('ECONNREFUSED');
  });

  it('refuses options that make no sense, naming them', () => {
    expect(() => new OrsClient({ baseUrl: 'ftp://example' })).toThrow(/baseUrl/);
    expect(() => new OrsClient({ baseUrl: 'http://127.0.0.1:1', retries: -1 })).toThrow(/retries/);
  });
});
