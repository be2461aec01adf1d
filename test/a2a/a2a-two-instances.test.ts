import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { a2aClient, collect, dataPartsOf, stateOf, statesOf, taskOf, userMessage } from './a2a-support.js';

/**
 * Two bridges on one Redis (docs/a2a.md): a task started on one is read, followed, answered and
 * cancelled through the other, since a task is a run and its context rides in the run.
 */

const KEY = 'alpha-key-0123456789';
let redis: TestRedis;
let a: TestBridge;
let b: TestBridge;
let onA: Client;
let onB: Client;

beforeAll(async () => {
  redis = await startTestRedis();
  const env = {
    RUNBRIDGE_API_KEYS: KEY,
    RUNBRIDGE_DEFAULT_ENV: 'arith',
    RUNBRIDGE_REDIS_URL: redis.url,
    RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
  };
  a = await startTestBridge(env, { apiKey: KEY });
  b = await startTestBridge(env, { apiKey: KEY });
  [onA, onB] = await Promise.all([a2aClient(a.url, KEY), a2aClient(b.url, KEY)]);
});
afterAll(async () => {
  await Promise.all([a?.shutdown(), b?.shutdown()]);
  await redis?.stop();
});

describe('a task on two instances', () => {
  it('is started on one, answered and followed through the other, and read the same on both', async () => {
    const gated = { env: 'arith', model: 'offline', approval: { tools: ['submit'] } };
    const waiting = taskOf(await onA.sendMessage(userMessage([{ data: gated }], { contextId: 'shared-ctx' })));
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');

    const seenOnB = await onB.getTask({ tenant: '', id: waiting.id, historyLength: undefined });
    expect(seenOnB).toMatchObject({ id: waiting.id, contextId: 'shared-ctx' });
    const [approvals] = dataPartsOf(seenOnB.status?.message);
    const [call] = (approvals as { pending: Array<{ tool_call_id: string }> }).pending;

    const following = onA.resubscribeTask({ tenant: '', id: waiting.id });
    expect((await following.next()).value?.payload?.$case).toBe('task');
    const done = taskOf(
      await onB.sendMessage(
        userMessage([{ data: { decisions: [{ tool_call_id: call!.tool_call_id, decision: 'approve' }] } }], {
          taskId: waiting.id,
        }),
      ),
    );
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
    expect(statesOf(await collect(following)).at(-1)).toBe('TASK_STATE_COMPLETED');
    const onBoth = await Promise.all(
      [onA, onB].map((client) => client.getTask({ tenant: '', id: waiting.id, historyLength: undefined })),
    );
    expect(onBoth[0]).toEqual(onBoth[1]);
  });

  it('is cancelled through the other instance', async () => {
    const gated = { env: 'arith', model: 'offline', approval: { tools: ['calculator'] } };
    const waiting = taskOf(await onA.sendMessage(userMessage([{ data: gated }])));
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');
    const cancelled = await onB.cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
    expect(stateOf(cancelled)).toBe('TASK_STATE_CANCELED');
    const read = await onA.getTask({ tenant: '', id: waiting.id, historyLength: undefined });
    expect(stateOf(read)).toBe('TASK_STATE_CANCELED');
  });
});
