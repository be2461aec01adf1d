import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SendMessageRequest } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aClient, collect, dataPartsOf, stateOf, statesOf, taskOf, userMessage } from '../a2a/a2a-support.js';
import { eventually } from '../support/eventually.js';
import { type LoopbackServer, serveLoopback } from '../support/loopback-server.js';
import { type Cluster, type Instance, OVER_HTTP, startCluster } from './serve-cluster.js';

/**
 * A2A tasks and their push notifications on several `runbridge serve` processes of one Redis
 * (docs/a2a.md, "Push notifications"): a task started on one instance is read, followed, answered and
 * cancelled through another, and when the instance running it is SIGKILLed the task fails
 * (`instance_lost`) on every instance, and its push notifications — those the dead instance had
 * queued and the failure itself — are delivered by the one that took over.
 */

const KEY = 'alpha-key-0123456789';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const TOKEN = 'receiver-token';
const CREDENTIALS = 'receiver-credentials';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let cluster: Cluster | undefined;
let receiver: LoopbackServer | undefined;
const received: Received[] = [];

afterEach(async () => {
  await cluster?.stop();
  await receiver?.close();
  cluster = receiver = undefined;
  received.length = 0;
});

async function start(): Promise<{ a: Instance; b: Instance; onA: Client; onB: Client; url: string }> {
  receiver = await serveLoopback((req, res, body) => {
    received.push({ path: req.url ?? '', headers: req.headers, body });
    res.writeHead(204).end();
  });
  cluster = await startCluster(2, {
    RUNBRIDGE_API_KEYS: KEY,
    RUNBRIDGE_DEFAULT_ENV: 'arith',
    RUNBRIDGE_WEBHOOK_SECRET: SECRET,
    RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    RUNBRIDGE_WEBHOOK_RETRY_SECONDS: '0.2',
  });
  const [a, b] = cluster.instances as [Instance, Instance];
  const [onA, onB] = await Promise.all([a2aClient(a.url, KEY), a2aClient(b.url, KEY)]);
  return { a, b, onA, onB, url: receiver.url };
}

/** A send starting a task on `data`, its pushes going to `url` with the token and credentials above. */
function sendWithPush(data: Record<string, unknown>, url: string, returnImmediately = false): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ data }] },
    configuration: {
      returnImmediately,
      taskPushNotificationConfig: { url, token: TOKEN, authentication: { scheme: 'Bearer', credentials: CREDENTIALS } },
    },
  });
}

/** The pushes received at `path`, once one leaves the task in `state`; each checked for its headers and signature. */
async function pushedUntil(path: string, state: string): Promise<Array<Record<string, unknown>>> {
  const pushes = await eventually(
    () => {
      const at = received.filter((push) => push.path === path);
      const states = at.map(
        (push) =>
          (JSON.parse(push.body) as { statusUpdate?: { status?: { state?: string } } }).statusUpdate?.status?.state,
      );
      return states.includes(state) && at;
    },
    `a push leaving the task ${state} at ${path}`,
    OVER_HTTP,
  );
  const verifier = new Webhook(SECRET);
  return pushes.map((push) => {
    expect(push.headers['x-a2a-notification-token']).toBe(TOKEN);
    expect(push.headers.authorization).toBe(`Bearer ${CREDENTIALS}`);
    expect(() => verifier.verify(push.body, push.headers as Record<string, string>)).not.toThrow();
    return JSON.parse(push.body) as Record<string, unknown>;
  });
}

describe('A2A tasks on several serve processes', () => {
  it('are read, followed, answered and cancelled through another instance, and pushed from the one running them', async () => {
    const { onA, onB, url } = await start();
    const gated = { env: 'arith', model: 'offline', approval: { tools: ['submit'] } };
    const waiting = taskOf(await onA.sendMessage(sendWithPush(gated, `${url}/answered`)));
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');

    const seenOnB = await onB.getTask({ tenant: '', id: waiting.id, historyLength: undefined });
    expect(stateOf(seenOnB)).toBe('TASK_STATE_INPUT_REQUIRED');
    const [approvals] = dataPartsOf(seenOnB.status?.message);
    const [call] = (approvals as { pending: Array<{ tool_call_id: string }> }).pending;
    const following = onB.resubscribeTask({ tenant: '', id: waiting.id });
    expect((await following.next()).value?.payload?.$case).toBe('task');

    const decision = { decisions: [{ tool_call_id: call!.tool_call_id, decision: 'approve' }] };
    const done = taskOf(await onB.sendMessage(userMessage([{ data: decision }], { taskId: waiting.id })));
    expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
    expect(statesOf(await collect(following)).at(-1)).toBe('TASK_STATE_COMPLETED');
    await pushedUntil('/answered', 'TASK_STATE_COMPLETED');

    const another = taskOf(await onA.sendMessage(sendWithPush(gated, `${url}/cancelled`)));
    const cancelled = await onB.cancelTask({ tenant: '', id: another.id, metadata: undefined });
    expect(stateOf(cancelled)).toBe('TASK_STATE_CANCELED');
    await pushedUntil('/cancelled', 'TASK_STATE_CANCELED');
  });

  it('fails with instance_lost when the instance running it is SIGKILLed, and its pushes are delivered by the other', async () => {
    const { a, onB, onA, url } = await start();
    cluster!.ors.holding.add('arith');
    const started = taskOf(
      await onA.sendMessage(sendWithPush({ env: 'arith', model: 'offline' }, `${url}/lost`, true)),
    );
    await eventually(() => cluster!.ors.waiting() === 1, 'the held tool call');
    const seenOnB = await onB.getTask({ tenant: '', id: started.id, historyLength: undefined });
    expect(stateOf(seenOnB)).toBe('TASK_STATE_WORKING');
    const following = onB.resubscribeTask({ tenant: '', id: started.id });
    expect((await following.next()).value?.payload?.$case).toBe('task');

    a.child.kill('SIGKILL');
    await a.exited;
    expect(statesOf(await collect(following)).at(-1)).toBe('TASK_STATE_FAILED');
    const failed = await onB.getTask({ tenant: '', id: started.id, historyLength: undefined });
    expect(stateOf(failed)).toBe('TASK_STATE_FAILED');

    const pushes = await pushedUntil('/lost', 'TASK_STATE_FAILED');
    type Update = {
      statusUpdate?: { taskId: string; status?: { state?: string }; metadata?: { error?: { code?: string } } };
    };
    const end = (pushes as Update[]).find((push) => push.statusUpdate?.status?.state === 'TASK_STATE_FAILED');
    expect(end?.statusUpdate?.taskId).toBe(started.id);
    expect(end?.statusUpdate?.metadata?.error?.code).toBe('instance_lost');
    // What A pushed before it died (the task at work) reached the receiver too, from A or after it.
    expect(
      pushes.some(
        (push) =>
          (push.statusUpdate as { status?: { state?: string } } | undefined)?.status?.state === 'TASK_STATE_WORKING',
      ),
    ).toBe(true);
    cluster!.ors.holding.delete('arith');
    cluster!.ors.release();
  });
});
