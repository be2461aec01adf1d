import { describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { type TestBridge, useTestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment } from '../support/test-environment.js';
import { chatProvider, decide, eventsMatching, ofType, sendMessage, snapshotOf } from './hitl-support.js';

/**
 * A run that waits on a person (docs/protocol.md §7): it is not orphaned however long nobody watches
 * (only its own timeout ends the wait), its subscribers get keep-alives meanwhile, and the routes
 * that steer it answer only its own key.
 */

const test = createTestEnvironment('hitl');
const scripts = scriptedProvider({ one: [{ toolCalls: [{ name: 'echo', arguments: '{"text":"x"}' }] }] });
const alpha = { Authorization: 'Bearer alpha-key-0123456789' };
const beta = { Authorization: 'Bearer beta-key-0123456789a' };
const bridge = useTestBridge(
  {
    RUNBRIDGE_DEFAULT_ENV: 'hitl',
    RUNBRIDGE_API_KEYS: 'alpha-key-0123456789,beta-key-0123456789a',
    // Long enough that a run just started is watched before it could pass for an orphan on a busy machine.
    RUNBRIDGE_ORPHAN_TTL_SECONDS: '1',
    RUNBRIDGE_SWEEP_SECONDS: '0.05',
    RUNBRIDGE_KEEPALIVE_SECONDS: '0.05',
    RUNBRIDGE_MAX_CONCURRENT_RUNS: '2',
    RUNBRIDGE_MAX_RUNNING_PER_KEY: '2',
  },
  {
    apiKey: 'alpha-key-0123456789',
    environments: [...builtinEnvironments, test.environment],
    providers: [scripts, chatProvider],
  },
);

describe('a run waiting on a person', () => {
  it('is not orphaned while nobody watches, gets keep-alives, and goes on when the person answers', async () => {
    const approving = await bridge.startRun({ model: 'scripted:one', approval: { tools: ['echo'] } });
    const chatting = await bridge.startRun({ model: 'chat', await_input: true });
    // Both watched until they wait: a run that still plays unwatched past the orphan TTL is orphaned.
    const [[required]] = await Promise.all([
      eventsMatching(bridge, approving, ofType('tool.approval_required')),
      eventsMatching(bridge, chatting, ofType('run.awaiting_input')),
    ]);

    // The control: a run started later that nobody watches and that waits on nobody (queued, both slots
    // being taken). Once a sweep has cancelled it as orphaned, that sweep judged the two waiting runs,
    // untouched for longer, too. Listing touches no run, so it is how the test looks.
    const control = await bridge.startRun({ model: 'chat', await_input: true });
    await eventually(async () => (await listed(bridge, 'cancelled')).includes(control), 'the control orphaned');
    await bridge.registry.sweep(); // the end of the sweep under way, which may have more runs to cancel
    expect((await bridge.readEvents(control)).at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'orphaned' });
    expect(await listed(bridge, 'requires_action')).toEqual([approving]);
    expect(await listed(bridge, 'awaiting_input')).toEqual([chatting]);

    const controller = new AbortController();
    const stream = await bridge.fetch(`/v1/runs/${approving}/events`, { signal: controller.signal });
    const reader = stream.body!.getReader();
    let text = '';
    while ((text.match(/^: keepalive$/gm)?.length ?? 0) < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    controller.abort();
    expect(text.match(/^: keepalive$/gm)?.length ?? 0).toBeGreaterThanOrEqual(3);

    expect((await decide(bridge, approving, required!.approval_id, { decision: 'approve' })).status).toBe(200);
    const events = await bridge.readEvents(approving);
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed' });
    const cancel = await bridge.fetch(`/v1/runs/${chatting}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(cancel.status).toBe(202);
    // The status it ends with, not the awaiting_input it had when the cancel came.
    expect(await cancel.json()).toEqual({ run_id: chatting, status: 'cancelled' });
    expect((await bridge.readEvents(chatting)).at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
  }, 20_000);
});

/** The ids of the runs `GET /v1/runs?status=…` lists. */
async function listed(target: TestBridge, status: string): Promise<string[]> {
  const page = (await (await target.fetch(`/v1/runs?status=${status}`)).json()) as { data: Array<{ run_id: string }> };
  return page.data.map((entry) => entry.run_id);
}

describe("another key's run", () => {
  it('answers 404 to decisions and messages from another key, and works for its own', async () => {
    const runId = await bridge.startRun({ model: 'scripted:one', approval: { tools: ['echo'] } });
    const [required] = await eventsMatching(bridge, runId, ofType('tool.approval_required'));
    const foreignDecision = await decide(bridge, runId, required!.approval_id, { decision: 'deny' }, beta);
    expect(foreignDecision.status).toBe(404);
    expect(foreignDecision.body).toMatchObject({ error: { code: 'run_not_found' } });
    const foreignMessage = await sendMessage(bridge, runId, 'hi', beta);
    expect(foreignMessage.status).toBe(404);
    expect((await snapshotOf(bridge, runId)).status).toBe('requires_action');

    expect((await sendMessage(bridge, runId, 'hi', alpha)).status).toBe(202);
    expect((await decide(bridge, runId, required!.approval_id, { decision: 'approve' }, alpha)).status).toBe(200);
    expect((await bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.completed' });
  });

  it('answers 401 without a key', async () => {
    const response = await fetch(`${bridge.url}/v1/runs/run_x/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'hi' }),
    });
    expect(response.status).toBe(401);
  });
});

describe('a queued run', () => {
  it('refuses messages until it runs (409 run_not_started)', async () => {
    // Two waiting runs take both slots; the third waits in the queue.
    const first = await bridge.startRun({ model: 'chat', await_input: true });
    const second = await bridge.startRun({ model: 'chat', await_input: true });
    const queued = await bridge.startRun({ model: 'chat', await_input: true });
    expect((await snapshotOf(bridge, queued)).status).toBe('queued');
    const answer = await sendMessage(bridge, queued, 'hello');
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: { code: 'run_not_started' } });
    for (const id of [queued, first, second]) {
      const cancel = await bridge.fetch(`/v1/runs/${id}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      });
      expect(await cancel.json()).toEqual({ run_id: id, status: 'cancelled' });
    }
    for (const id of [first, second, queued]) await bridge.readEvents(id);
  });
});
