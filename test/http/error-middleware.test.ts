import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DrainingError, ModelError, RunbridgeError } from '../../src/errors.js';
import { errorMiddleware } from '../../src/http/error-middleware.js';
import { captureLog } from '../support/captured-log.js';

describe('the error middleware', () => {
  const log = captureLog();
  const failures: Record<string, () => Error> = {
    '/model': () => new ModelError('The model provider is unavailable.', { code: 'model_unavailable' }),
    '/draining': () => new DrainingError(),
    '/ours': () => new RunbridgeError('The run broke.', { code: 'internal_error', status: 500 }),
    '/bug': () => new Error('secret internals'),
  };
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = new Koa();
    app.silent = true;
    app.use(errorMiddleware(log.logger));
    app.use((ctx) => {
      throw failures[ctx.path]!();
    });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
  };

  it('answers an upstream failure (502) and draining (503) with their codes and keeps them out of the server log', async () => {
    const before = log.lines().length;
    expect(await get('/model')).toEqual({
      status: 502,
      body: { error: { code: 'model_unavailable', message: 'The model provider is unavailable.' } },
    });
    expect((await get('/draining')).status).toBe(503);
    expect(log.lines().slice(before)).toEqual([]);
  });

  it('logs our own 500s, and hides an unknown error behind a generic message', async () => {
    const before = log.lines().length;
    expect(await get('/ours')).toEqual({
      status: 500,
      body: { error: { code: 'internal_error', message: 'The run broke.' } },
    });
    const bug = await get('/bug');
    expect(bug.status).toBe(500);
    expect(JSON.stringify(bug.body)).not.toContain('secret internals');
    expect(log.lines().slice(before)).toMatchObject([
      { level: 'error', msg: 'request failed', err: { message: 'The run broke.', code: 'internal_error' } },
      { level: 'error', msg: 'request failed', err: { type: 'Error', message: 'secret internals' } },
    ]);
  });
});
