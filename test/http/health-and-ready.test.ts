import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import { HealthSchema } from '../../src/protocol/api-answers.js';
import { eventually } from '../support/eventually.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { unusedPort } from '../support/unused-port.js';

/**
 * `/health` and `/ready` (docs/api.md): a bridge starts before its ORS server and says so — liveness stays
 * 200 and reports the ORS server unreachable with its last error; readiness is 503 `not_ready` until the
 * ORS server answers, then 200.
 */
describe('a bridge that starts before its ORS server', () => {
  let port: number;
  let bridge: TestBridge;
  let ors: OrsServer | undefined;

  beforeAll(async () => {
    port = await unusedPort();
    bridge = await startTestBridge({ ORS_URL: `http://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await bridge?.shutdown();
    await ors?.close();
  });

  it('is alive but not ready while the ORS server does not answer, and ready once it does', async () => {
    const health = await bridge.fetch('/health');
    expect(health.status).toBe(200);
    const body = HealthSchema.parse(await health.json());
    expect(body).toMatchObject({ status: 'ok', store: 'memory', ors: { status: 'unreachable' } });
    // The process that answered; an instance id only with a shared store.
    expect(body.pid).toBe(process.pid);
    expect(body).not.toHaveProperty('instance');
    expect(body.ors.status === 'unreachable' && body.ors.error).toMatch(/ECONNREFUSED|no answer/);

    const notReady = await bridge.fetch('/ready');
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('retry-after')).toBe('1');
    expect(await notReady.json()).toMatchObject({
      error: { code: 'not_ready', details: [expect.stringContaining('the ORS server does not answer')] },
    });

    ors = createOrsServer({ environments: builtinEnvironments });
    await ors.listen(port, '127.0.0.1');
    const ready = await eventually(async () => {
      const answer = await bridge.fetch('/ready');
      return answer.status === 200 && answer;
    }, 'the bridge to be ready');
    expect(await ready.json()).toEqual({ status: 'ready' });
    expect(HealthSchema.parse(await (await bridge.fetch('/health')).json()).ors).toEqual({ status: 'ok' });
    // The default environment is chosen now that the server answers.
    const listed = (await (await bridge.fetch('/v1/environments')).json()) as { default: string };
    expect(listed.default).toBe('arith');
  });
});
