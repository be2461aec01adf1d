import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  SendMessageRequest,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { type LoopbackServer, serveLoopback } from '../support/loopback-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { a2aClient, dataPartsOf, legacyClient, rpc, stateOf, taskOf, userMessage } from './a2a-support.js';

/**
 * Push notifications (docs/a2a.md, "Push notifications"): a task's configs, set with its send or
 * with the config methods, each get the task's events POSTed to their URL — with their token, their
 * `Authorization`, and the bridge's own Standard Webhooks signature — through the webhooks' outbox.
 */

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const ALPHA = 'alpha-key-0123456789';
const BETA = 'beta-key-01234567890';
const MAX_CONFIGS = 3;

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let receiver: LoopbackServer;
const received: Received[] = [];
let bridge: TestBridge;
let client: Client;

beforeAll(async () => {
  receiver = await serveLoopback((req, res, body) => {
    received.push({ path: req.url ?? '', headers: req.headers, body });
    res.writeHead(204).end();
  });
  bridge = await startTestBridge({
    RUNBRIDGE_API_KEYS: `${ALPHA},${BETA}`,
    RUNBRIDGE_DEFAULT_ENV: 'arith',
    RUNBRIDGE_WEBHOOK_SECRET: SECRET,
    RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    RUNBRIDGE_WEBHOOK_RETRY_SECONDS: '0.05',
    RUNBRIDGE_WEBHOOK_POLL_SECONDS: '0.02',
    RUNBRIDGE_A2A_MAX_PUSH_CONFIGS: String(MAX_CONFIGS),
  });
  client = await a2aClient(bridge.url, ALPHA);
});
afterAll(async () => {
  await bridge?.shutdown();
  await receiver?.close();
});

/** What reached the receiver at `path`, its bodies parsed. */
function at(path: string): Array<Received & { json: Record<string, unknown> }> {
  return received.filter((push) => push.path === path).map((push) => ({ ...push, json: JSON.parse(push.body) }));
}

/** The v1.0 state a pushed stream event leaves the task in, if it is a status update. */
function pushedState(json: Record<string, unknown>): string | undefined {
  return (json.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state;
}

/** A task that waits for an approval of its `submit` call, and that call's id. */
async function gatedTask(on: Client = client): Promise<{ id: string; call: string }> {
  const gated = { env: 'arith', model: 'offline', approval: { tools: ['submit'] } };
  const waiting = taskOf(await on.sendMessage(userMessage([{ data: gated }])));
  expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');
  const [approvals] = dataPartsOf(waiting.status?.message);
  const [call] = (approvals as { pending: Array<{ tool_call_id: string }> }).pending;
  return { id: waiting.id, call: call!.tool_call_id };
}

function approve(taskId: string, call: string) {
  return client.sendMessage(
    userMessage([{ data: { decisions: [{ tool_call_id: call, decision: 'approve' }] } }], { taskId }),
  );
}

function createConfig(taskId: string, path: string, extra: Record<string, unknown> = {}) {
  return client.createTaskPushNotificationConfig(
    TaskPushNotificationConfig.fromJSON({ taskId, url: `${receiver.url}${path}`, ...extra }),
  );
}

describe('push notifications', () => {
  it("POSTs each of a task's stream events, with the config's token and authentication and the bridge's signature", async () => {
    const send = SendMessageRequest.fromJSON({
      message: {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ data: { env: 'arith', model: 'offline' } }],
      },
      configuration: {
        taskPushNotificationConfig: {
          url: `${receiver.url}/inline`,
          token: 'receiver-token',
          authentication: { scheme: 'Bearer', credentials: 'receiver-credentials' },
        },
      },
    });
    const done = taskOf(await client.sendMessage(send));
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');

    const pushes = await eventually(() => {
      const all = at('/inline');
      return all.some((push) => pushedState(push.json) === 'TASK_STATE_COMPLETED') && all;
    }, 'the completed status pushed');
    const verifier = new Webhook(SECRET);
    for (const push of pushes) {
      expect(push.headers['x-a2a-notification-token']).toBe('receiver-token');
      expect(push.headers.authorization).toBe('Bearer receiver-credentials');
      expect(push.headers['content-type']).toBe('application/a2a+json');
      expect(() => verifier.verify(push.body, push.headers as Record<string, string>)).not.toThrow();
      // One stream event per POST, of this task.
      expect(Object.keys(push.json)).toHaveLength(1);
      const [event] = Object.values(push.json) as Array<{ taskId?: string; id?: string }>;
      expect(event?.taskId ?? event?.id).toBe(done.id);
    }
    expect(pushes.map((push) => pushedState(push.json)).filter(Boolean)).toContain('TASK_STATE_WORKING');
  });

  it('sets, reads, lists and deletes configs; a deleted config is sent nothing more', async () => {
    const { id, call } = await gatedTask();
    const kept = await createConfig(id, '/kept', { token: 'kept-token' });
    const dropped = await createConfig(id, '/dropped', {
      authentication: { scheme: 'Basic', credentials: 'c2VjcmV0' },
    });
    expect(kept).toMatchObject({ taskId: id, url: `${receiver.url}/kept`, token: 'kept-token' });
    expect(kept.id).not.toBe('');
    // The receiver's credentials are never read back.
    expect(dropped.authentication?.scheme).toBe('Basic');
    expect(dropped.authentication?.credentials ?? '').toBe('');

    const read = await client.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: id, id: dropped.id }),
    );
    expect(read).toEqual(dropped);
    const listed = await client.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: id }),
    );
    expect(listed.configs.map((config) => config.id)).toEqual([kept.id, dropped.id]);

    await client.deleteTaskPushNotificationConfig(
      DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: id, id: dropped.id }),
    );
    // Deleting is idempotent.
    await client.deleteTaskPushNotificationConfig(
      DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: id, id: dropped.id }),
    );
    const left = await client.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: id }),
    );
    expect(left.configs.map((config) => config.id)).toEqual([kept.id]);

    expect(stateOf(taskOf(await approve(id, call)))).toBe('TASK_STATE_COMPLETED');
    await eventually(
      () => at('/kept').some((push) => pushedState(push.json) === 'TASK_STATE_COMPLETED'),
      'the completed status pushed to the kept config',
    );
    expect(at('/kept').every((push) => push.headers['x-a2a-notification-token'] === 'kept-token')).toBe(true);
    expect(at('/dropped')).toEqual([]);
  });

  it('refuses a config past the cap per task, with a typed error', async () => {
    const { id } = await gatedTask();
    for (let n = 0; n < MAX_CONFIGS; n++) await createConfig(id, `/cap-${n}`);
    const answer = await rpc(
      bridge.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'CreateTaskPushNotificationConfig',
        params: { taskId: id, url: `${receiver.url}/cap-over` },
      },
      { Authorization: `Bearer ${ALPHA}`, 'A2A-Version': '1.0' },
    );
    const { error } = (await answer.json()) as { error: { code: number; message: string; data: unknown } };
    expect(error.message).toContain(String(MAX_CONFIGS));
    expect(JSON.stringify(error.data)).toContain('push_configs_full');
    // Replacing one of the same id is not a new one.
    const first = (
      await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: id }))
    ).configs[0];
    await expect(createConfig(id, '/cap-replaced', { id: first?.id })).resolves.toMatchObject({ id: first?.id });
  });

  it("answers another key's task as not found, for every config method", async () => {
    const { id } = await gatedTask();
    const mine = await createConfig(id, '/alpha-only');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['CreateTaskPushNotificationConfig', { taskId: id, url: `${receiver.url}/beta` }],
      ['GetTaskPushNotificationConfig', { taskId: id, id: mine.id }],
      ['ListTaskPushNotificationConfigs', { taskId: id }],
      ['DeleteTaskPushNotificationConfig', { taskId: id, id: mine.id }],
    ];
    for (const [method, params] of calls) {
      const answer = await rpc(
        bridge.url,
        { jsonrpc: '2.0', id: 1, method, params },
        { Authorization: `Bearer ${BETA}`, 'A2A-Version': '1.0' },
      );
      const { error } = (await answer.json()) as { error: { code: number } };
      expect({ method, code: error.code }).toEqual({ method, code: -32001 });
    }
    const listed = await client.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: id }),
    );
    expect(listed.configs.map((config) => config.url)).toEqual([`${receiver.url}/alpha-only`]);
  });

  it('answers an unknown config id -32001 with push_config_not_found', async () => {
    const { id } = await gatedTask();
    const answer = await rpc(
      bridge.url,
      { jsonrpc: '2.0', id: 1, method: 'GetTaskPushNotificationConfig', params: { taskId: id, id: 'nope' } },
      { Authorization: `Bearer ${ALPHA}`, 'A2A-Version': '1.0' },
    );
    const { error } = (await answer.json()) as { error: { code: number; data: unknown } };
    expect(JSON.stringify(error.data)).toContain('push_config_not_found');
  });

  it('pushes the whole v0.3 task to a config set with tasks/pushNotificationConfig/set', async () => {
    const { id, call } = await gatedTask();
    const set = await rpc(
      bridge.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/pushNotificationConfig/set',
        params: {
          taskId: id,
          pushNotificationConfig: {
            url: `${receiver.url}/legacy`,
            token: 'legacy-token',
            authentication: { schemes: ['Bearer'], credentials: 'legacy-credentials' },
          },
        },
      },
      { Authorization: `Bearer ${ALPHA}` },
    );
    const { result } = (await set.json()) as { result: { taskId: string; pushNotificationConfig: { id: string } } };
    expect(result).toMatchObject({ taskId: id, pushNotificationConfig: { url: `${receiver.url}/legacy` } });
    await approve(id, call);
    const pushes = await eventually(() => {
      const all = at('/legacy');
      return all.some((push) => (push.json.status as { state?: string })?.state === 'completed') && all;
    }, 'the completed v0.3 task pushed');
    for (const push of pushes) {
      expect(push.json).toMatchObject({ kind: 'task', id });
      expect(push.headers['x-a2a-notification-token']).toBe('legacy-token');
      expect(push.headers.authorization).toBe('Bearer legacy-credentials');
      expect(push.headers['content-type']).toBe('application/json');
    }
  });
  it('takes a config in a v0.3 send (the SDK over its v0.3 transport) and pushes it the whole v0.3 task', async () => {
    const legacy = await legacyClient(bridge.url, ALPHA);
    const send = SendMessageRequest.fromJSON({
      message: {
        messageId: crypto.randomUUID(),
        role: 'ROLE_USER',
        parts: [{ data: { env: 'arith', model: 'offline' } }],
      },
      configuration: { taskPushNotificationConfig: { url: `${receiver.url}/legacy-inline`, token: 'inline-token' } },
    });
    const done = taskOf(await legacy.sendMessage(send));
    const pushes = await eventually(() => {
      const all = at('/legacy-inline');
      return all.some((push) => (push.json.status as { state?: string })?.state === 'completed') && all;
    }, 'the completed v0.3 task pushed');
    for (const push of pushes) {
      expect(push.json).toMatchObject({ kind: 'task', id: done.id });
      expect(push.headers['x-a2a-notification-token']).toBe('inline-token');
      expect(push.headers.authorization).toBeUndefined();
    }
  });
  it('refuses a receiver the SSRF guard refuses, before the task starts', async () => {
    const total = async () => {
      const answer = await rpc(
        bridge.url,
        { jsonrpc: '2.0', id: 1, method: 'ListTasks', params: {} },
        { Authorization: `Bearer ${ALPHA}`, 'A2A-Version': '1.0' },
      );
      return ((await answer.json()) as { result: { totalSize: number } }).result.totalSize;
    };
    const before = await total();
    const answer = await rpc(
      bridge.url,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'SendMessage',
        params: {
          message: { messageId: 'm-ssrf', role: 'ROLE_USER', parts: [{ data: { env: 'arith', model: 'offline' } }] },
          configuration: { taskPushNotificationConfig: { url: 'http://10.0.0.1/hook' } },
        },
      },
      { Authorization: `Bearer ${ALPHA}`, 'A2A-Version': '1.0' },
    );
    const { error } = (await answer.json()) as { error: { code: number; data: unknown } };
    expect(error.code).toBe(-32602);
    expect(JSON.stringify(error.data)).toContain('webhook_refused');
    expect(await total()).toBe(before);
  });
});
