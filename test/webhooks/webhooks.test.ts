import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import type { RunEvent, RunEventOf } from '../../src/protocol/run-events.js';
import type { RunListItem, RunSnapshot } from '../../src/protocol/run-snapshot.js';
import type { WebhookDelivery } from '../../src/protocol/webhook.js';
import { chatProvider } from '../hitl/hitl-support.js';
import { captureLog } from '../support/captured-log.js';
import { eventually } from '../support/eventually.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment } from '../support/test-environment.js';
import { type Reply, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * Webhooks (docs/protocol.md §9): a run calls its webhook when it ends and when it waits on a person,
 * signed per Standard Webhooks (checked with the `standardwebhooks` package's own verify), at least
 * once — retried with backoff on non-2xx, timeouts and refused connections, up to a bound — with
 * every delivery's state in the snapshot; targets that are not public are refused unless allowed.
 */

/** The body of a delivery. */
interface WebhookPayload {
  type: string;
  timestamp: string;
  data: { run: RunListItem; event: RunEvent };
}

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

async function receiver(reply?: (n: number) => Reply, holdMs?: number): Promise<WebhookReceiver> {
  const started = await startWebhookReceiver(reply, holdMs);
  stops.push(() => started.close());
  return started;
}

/**
 * A bridge that signs with SECRET and lets webhooks reach its loopback receiver, with fast retries
 * that are picked up as soon as they are due.
 */
async function bridge(
  env: Record<string, string> = {},
  options: Parameters<typeof startTestBridge>[1] = {},
): Promise<TestBridge> {
  const started = await startTestBridge(
    {
      RUNBRIDGE_WEBHOOK_SECRET: SECRET,
      RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      RUNBRIDGE_WEBHOOK_RETRY_SECONDS: '0.05',
      RUNBRIDGE_WEBHOOK_POLL_SECONDS: '0.02',
      ...env,
    },
    options,
  );
  stops.push(() => started.shutdown());
  return started;
}

async function post(target: TestBridge, body: unknown) {
  const response = await target.fetch('/v1/runs', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { error: { code: string; message: string } } };
}

/** The snapshot {@link deliveriesOf} read last. */
let lastSnapshot: Partial<RunSnapshot> = {};

/** Polls the run's snapshot until its deliveries satisfy `done`. */
async function deliveriesOf(
  target: TestBridge,
  runId: string,
  done: (deliveries: WebhookDelivery[]) => boolean,
): Promise<WebhookDelivery[]> {
  return eventually(async () => {
    const snapshot = (await (await target.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot;
    lastSnapshot = snapshot;
    const deliveries = snapshot.webhook?.deliveries ?? [];
    if (!done(deliveries)) throw new Error(`the deliveries so far: ${JSON.stringify(deliveries)}`);
    return deliveries;
  }, 'the deliveries to settle');
}

const settled = (deliveries: WebhookDelivery[]) =>
  deliveries.length > 0 && deliveries.every((delivery) => delivery.status !== 'pending');

describe('a webhook delivery', () => {
  it('is signed per Standard Webhooks and carries the run snapshot and the event', async () => {
    const hooks = await receiver();
    const target = await bridge();
    const runId = await target.startRun({ webhook: { url: `${hooks.url}/hooks/runs` } });
    const [request] = await hooks.waitFor(1);
    if (!request) throw new Error('no request');

    expect(request.path).toBe('/hooks/runs');
    expect(request.headers['content-type']).toBe('application/json');
    const payload = new Webhook(SECRET).verify(
      request.body,
      request.headers as Record<string, string>,
    ) as WebhookPayload;
    expect(payload.type).toBe('run.completed');
    expect(Date.parse(payload.timestamp)).toBeGreaterThan(0);
    expect(payload.data.run).toMatchObject({ run_id: runId, status: 'completed', finished: true });
    expect(payload.data.run.webhook).toBeUndefined();
    expect(payload.data.event).toMatchObject({ event: 'run.completed', run_id: runId });
    expect(request.headers['webhook-id']).toBe(`msg_${runId}_${payload.data.event.seq}`);

    // A body changed on the way, or another secret, does not verify.
    const tampered = request.body.replace('"completed"', '"failed"');
    expect(() => new Webhook(SECRET).verify(tampered, request.headers as Record<string, string>)).toThrow();
    const other = `whsec_${randomBytes(32).toString('base64')}`;
    expect(() => new Webhook(other).verify(request.body, request.headers as Record<string, string>)).toThrow();

    const [delivery] = await deliveriesOf(target, runId, settled);
    expect(delivery).toMatchObject({
      webhook_id: request.headers['webhook-id'],
      event: 'run.completed',
      status: 'delivered',
      attempts: 1,
      last_status: 204,
      last_error: null,
      next_attempt_at: null,
    });
    expect(delivery?.delivered_at).toEqual(expect.any(Number));
    // The list shows the same deliveries as the run's own snapshot.
    const page = (await (await target.fetch('/v1/runs')).json()) as { data: RunSnapshot[] };
    expect(page.data.find((run) => run.run_id === runId)?.webhook?.deliveries).toEqual([delivery]);
  });

  it('is retried after non-2xx answers, under the same webhook-id, until one succeeds', async () => {
    const hooks = await receiver((n) => (n < 2 ? ([500, 503][n] ?? 500) : 200));
    const target = await bridge();
    const runId = await target.startRun({ webhook: { url: hooks.url } });
    const requests = await hooks.waitFor(3);
    const ids = new Set(requests.map((request) => request.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const request of requests) {
      expect(() => new Webhook(SECRET).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
    }
    const [delivery] = await deliveriesOf(target, runId, settled);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, last_status: 200 });
  });

  it('is retried when the receiver does not answer in time', async () => {
    const hooks = await receiver((n) => (n === 0 ? 'hang' : 200));
    const target = await bridge({ RUNBRIDGE_WEBHOOK_TIMEOUT_SECONDS: '0.3' });
    const runId = await target.startRun({ webhook: { url: hooks.url } });
    await hooks.waitFor(2);
    const [delivery] = await deliveriesOf(target, runId, settled);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 2, last_status: 200 });
  });

  it('fails for good after the last attempt, in the snapshot and the log', async () => {
    const hooks = await receiver(() => 500);
    const log = captureLog('warn');
    const target = await bridge({ RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: '3' }, { logger: log.logger });
    const runId = await target.startRun({ webhook: { url: hooks.url } });
    const [delivery] = await deliveriesOf(target, runId, settled);
    expect(delivery).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_status: 500,
      last_error: 'the receiver answered 500',
      next_attempt_at: null,
      delivered_at: null,
    });
    expect(hooks.received).toHaveLength(3);
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        run_id: runId,
        webhook_id: delivery?.webhook_id,
        msg: expect.stringContaining('after 3 attempt'),
      }),
    );
  });

  it('is retried when the connection is refused', async () => {
    const closed = await startWebhookReceiver();
    await closed.close();
    const target = await bridge({ RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: '2' });
    const runId = await target.startRun({ webhook: { url: closed.url } });
    const [delivery] = await deliveriesOf(target, runId, settled);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 2, last_status: null });
    expect(delivery?.last_error).toMatch(/ECONNREFUSED/);
  });

  it('does not follow a redirect', async () => {
    const hooks = await receiver((n) => (n === 0 ? { redirect: '/elsewhere' } : 200));
    const target = await bridge({ RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: '1' });
    const runId = await target.startRun({ webhook: { url: `${hooks.url}/first` } });
    const [delivery] = await deliveriesOf(target, runId, settled);
    expect(delivery).toMatchObject({ status: 'failed', attempts: 1, last_status: 302 });
    expect(hooks.received.map((request) => request.path)).toEqual(['/first']);
  });

  it('reaches every one of many runs ending at once, never more than the concurrency at a time', async () => {
    const hooks = await receiver(() => 200, 100);
    const target = await bridge({ RUNBRIDGE_WEBHOOK_CONCURRENCY: '2' });
    const runIds = await Promise.all(
      Array.from({ length: 12 }, () => target.startRun({ webhook: { url: hooks.url } })),
    );
    for (const runId of runIds) await deliveriesOf(target, runId, settled);
    const delivered = new Set(
      hooks.received.map((request) => (JSON.parse(request.body) as WebhookPayload).data.run.run_id),
    );
    expect([...delivered].sort()).toEqual([...runIds].sort());
    expect(hooks.maxConcurrent).toBeGreaterThan(0);
    expect(hooks.maxConcurrent).toBeLessThanOrEqual(2);
  });
});

describe('a bridge shutting down', () => {
  // In memory, pending deliveries die with the process; a shared store keeps them for another instance
  // (test/multi-instance/webhook-restart.test.ts).
  it('delivers the end of the runs it cancelled before it stops, retries included', async () => {
    const hooks = await receiver((n) => (n === 0 ? 503 : 204));
    const target = await startTestBridge({
      RUNBRIDGE_WEBHOOK_SECRET: SECRET,
      RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      RUNBRIDGE_WEBHOOK_RETRY_SECONDS: '0.3',
      RUNBRIDGE_WEBHOOK_POLL_SECONDS: '0.02',
      RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '1',
    });
    const runId = await target.startRun({
      webhook: { url: hooks.url, events: ['run.cancelled'] },
      approval: { tools: '*' },
    });
    await eventually(
      async () =>
        ((await (await target.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot).status === 'requires_action',
      'the run to wait for a decision',
    );
    await target.shutdown();
    // The first attempt got a 503; the retry, due after the runs ended, went out before the bridge stopped.
    expect(hooks.received).toHaveLength(2);
    const payload = JSON.parse(hooks.received[1]?.body ?? '{}') as WebhookPayload;
    expect(payload).toMatchObject({ type: 'run.cancelled', data: { run: { run_id: runId, status: 'cancelled' } } });
    expect(payload.data.event).toMatchObject({ event: 'run.cancelled', reason: 'shutdown' });
  });
});

describe('the events a webhook is called for', () => {
  it('include tool.approval_required while the run waits, then its end', async () => {
    const hooks = await receiver();
    const target = await bridge();
    const runId = await target.startRun({ webhook: { url: hooks.url }, approval: { tools: '*' } });
    const [first] = await hooks.waitFor(1);
    const payload = JSON.parse(first?.body ?? '{}') as WebhookPayload;
    expect(payload.type).toBe('tool.approval_required');
    expect(payload.data.run.status).toBe('requires_action');
    expect(payload.data.event.event).toBe('tool.approval_required');
    // The run as lists show it: the waiting call summarised; the event carries its arguments whole.
    const required = payload.data.event as RunEventOf<'tool.approval_required'>;
    expect(payload.data.run.pending_approvals).toEqual([
      expect.objectContaining({
        approval_id: required.approval_id,
        arguments_preview: JSON.stringify(required.arguments).slice(0, 200),
      }),
    ]);
    expect(payload.data.run.pending_approvals[0]).not.toHaveProperty('arguments');

    // Every call the offline model makes waits for a decision: approve each as it comes.
    const approved = new Set<string>();
    const deliveries = await deliveriesOf(target, runId, (all) => {
      for (const { pending_approvals } of [lastSnapshot]) {
        for (const { approval_id } of pending_approvals ?? []) {
          if (approved.has(approval_id)) continue;
          approved.add(approval_id);
          void target.fetch(`/v1/runs/${runId}/approvals/${approval_id}`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ decision: 'approve' }),
          });
        }
      }
      return all.at(-1)?.event === 'run.completed' && settled(all);
    });
    const events = deliveries.map((delivery) => delivery.event);
    expect(events.at(-1)).toBe('run.completed');
    expect(events.slice(0, -1)).toEqual(Array(approved.size).fill('tool.approval_required'));
  });

  it('include run.awaiting_input in chat mode', async () => {
    const hooks = await receiver();
    const target = await bridge(
      { RUNBRIDGE_DEFAULT_ENV: 'hitl' },
      { environments: [...builtinEnvironments, createTestEnvironment('hitl').environment], providers: [chatProvider] },
    );
    const runId = await target.startRun({
      model: 'chat',
      webhook: { url: hooks.url },
      await_input: true,
      input_timeout_seconds: 30,
    });
    const [first] = await hooks.waitFor(1);
    const payload = JSON.parse(first?.body ?? '{}') as WebhookPayload;
    expect(payload.type).toBe('run.awaiting_input');
    expect(payload.data.run).toMatchObject({ run_id: runId, status: 'awaiting_input' });
    const cancelled = await target.fetch(`/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(cancelled.status).toBe(202);
    const deliveries = await deliveriesOf(target, runId, (all) => all.length === 2 && settled(all));
    expect(deliveries.map((delivery) => delivery.event)).toEqual(['run.awaiting_input', 'run.cancelled']);
  });

  it('are only those the request names', async () => {
    const hooks = await receiver();
    const target = await bridge();
    const runId = await target.startRun({
      webhook: { url: hooks.url, events: ['run.failed', 'run.completed'] },
      approval: { tools: '*', timeout_seconds: 0.2, on_timeout: 'approve' },
    });
    const snapshot = (await (await target.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot;
    expect(snapshot.webhook).toMatchObject({ url: hooks.url, events: ['run.failed', 'run.completed'] });
    await target.readEvents(runId);
    // Events are chosen for delivery in the order they are appended, and run.completed is the last:
    // once its delivery has settled, every earlier event has been passed over or delivered too.
    const deliveries = await deliveriesOf(target, runId, settled);
    expect(deliveries.map((delivery) => delivery.event)).toEqual(['run.completed']);
    expect(hooks.received.map((request) => (JSON.parse(request.body) as WebhookPayload).type)).toEqual([
      'run.completed',
    ]);
  });
});

describe('a webhook POST /v1/runs refuses (400)', () => {
  it('when the target is loopback, private or link-local and not allowed — by address or by name', async () => {
    const hooks = await receiver();
    const target = await bridge({ RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '' });
    const port = new URL(hooks.url).port;
    for (const url of [
      hooks.url,
      `http://localhost:${port}/`,
      'http://10.1.2.3/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:9/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const answer = await post(target, { webhook: { url } });
      expect(answer.status, url).toBe(400);
      expect(answer.body.error.code, url).toBe('webhook_refused');
      expect(answer.body.error.message).toContain('RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS');
    }
    expect(hooks.received).toHaveLength(0);
    expect(((await (await target.fetch('/v1/runs')).json()) as { data: unknown[] }).data).toEqual([]);
  });

  it('when the server has no webhook secret', async () => {
    const target = await startTestBridge({});
    stops.push(() => target.shutdown());
    const answer = await post(target, { webhook: { url: 'https://hooks.example.com/x' } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('webhooks_not_configured');
  });

  it('when the URL or the events are not ones it can use', async () => {
    const target = await bridge();
    for (const webhook of [
      { url: 'ftp://hooks.example.com/x' },
      { url: 'not a url' },
      { url: 'https://hooks.example.com/x', events: ['run.started'] },
      { url: 'https://hooks.example.com/x', extra: 1 },
    ]) {
      const answer = await post(target, { webhook });
      expect(answer.status, JSON.stringify(webhook)).toBe(400);
      expect(answer.body.error.message).toContain('webhook');
    }
  });
});
