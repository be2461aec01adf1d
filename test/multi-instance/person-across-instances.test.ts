import { describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import type { RunEventOf } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import {
  chatProvider,
  decide,
  echo,
  eventsMatching,
  ofType,
  postJson,
  recordingProvider,
  type Sent,
  sendMessage,
  snapshotOf,
} from '../hitl/hitl-support.js';
import { eventually } from '../support/eventually.js';
import type { TestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment } from '../support/test-environment.js';
import { useTwoBridgesOnRedis } from '../support/two-bridges-on-redis.js';

/**
 * A person in the loop with two instances on one Redis (docs/protocol.md §7, §8): every decision and
 * message is posted to the instance that does not execute the run, which hands it on through the
 * store's control path and answers with what the executing instance wrote.
 */

const sent: Sent = [];
const test = createTestEnvironment('hitl');
const instances = useTwoBridgesOnRedis(
  { RUNBRIDGE_DEFAULT_ENV: 'hitl', RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '1' },
  {
    environments: [...builtinEnvironments, test.environment],
    providers: [recordingProvider({ one: [{ toolCalls: [echo('first')] }, { text: 'Done.' }] }, sent), chatProvider],
  },
);

/**
 * The instance executing run `runId` (it has started and waits on a person) and the other one: every
 * decision and message below goes to the other one.
 */
function executorAndOther(): { executor: TestBridge; other: TestBridge } {
  const { a, b } = instances;
  const onA = a.registry.localStats().running;
  const onB = b.registry.localStats().running;
  expect(onA + onB).toBe(1);
  return onA === 1 ? { executor: a, other: b } : { executor: b, other: a };
}

/**
 * Waits until `instance` says the run's status is `status`. An instance that does not execute the run
 * reads its events from Redis a moment after they are written, so the status the executor's stream
 * showed can still be the one before on the other instance.
 */
async function statusOn(instance: TestBridge, runId: string, status: string): Promise<void> {
  await eventually(
    async () => (await snapshotOf(instance, runId)).status === status,
    `status ${status} on the other instance`,
  );
}

async function waitingApproval(runId: string) {
  const [required] = await eventsMatching(instances.a, runId, ofType('tool.approval_required'));
  return { required: required as RunEventOf<'tool.approval_required'>, ...executorAndOther() };
}

describe('a person in the loop, across instances', () => {
  it('runs a call approved on the other instance with the arguments it was sent', async () => {
    const { a, b } = instances;
    const runId = await a.startRun({ model: 'scripted:one', approval: { tools: ['echo'] } });
    const { required, other } = await waitingApproval(runId);
    await statusOn(other, runId, 'requires_action');

    const answer = await decide(other, runId, required.approval_id, {
      decision: 'approve',
      arguments: { text: 'edited' },
    });
    expect(answer).toMatchObject({ status: 200, body: { decision: 'approve', edited: true, by: 'client' } });

    const events = await b.readEvents(runId);
    assertEventOrder(events);
    expect(events.find((event) => event.event === 'tool.started')).toMatchObject({ arguments: { text: 'edited' } });
    expect(events.at(-1)).toMatchObject({ event: 'run.completed' });
  });

  it('tells the model a denial posted on the other instance, and never runs the call', async () => {
    const { a } = instances;
    const runsBefore = test.probe.runs.get('echo') ?? 0;
    const runId = await a.startRun({ model: 'scripted:one', approval: { tools: ['echo'] } });
    const { required, executor, other } = await waitingApproval(runId);
    const answer = await decide(other, runId, required.approval_id, { decision: 'deny', reason: 'not today' });
    expect(answer).toMatchObject({ status: 200, body: { decision: 'deny', reason: 'not today' } });

    const events = await executor.readEvents(runId);
    expect(events.some((event) => event.event === 'tool.started')).toBe(false);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed' });
    expect(test.probe.runs.get('echo') ?? 0).toBe(runsBefore);
    expect(JSON.stringify(sent.at(-1))).toContain('not today');
  });

  it('lets exactly one of two decisions racing on both instances win; the other gets 409', async () => {
    const { a, b } = instances;
    const runId = await a.startRun({ model: 'scripted:one', approval: { tools: ['echo'] } });
    const { required, executor, other } = await waitingApproval(runId);
    const answers = await Promise.all([
      decide(executor, runId, required.approval_id, { decision: 'approve' }),
      decide(other, runId, required.approval_id, { decision: 'deny', reason: 'mine' }),
    ]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    const loser = answers.find((answer) => answer.status === 409)!;
    expect(loser.body).toMatchObject({ error: { code: 'approval_resolved' } });

    const events = await b.readEvents(runId);
    const resolved = events.filter((event) => event.event === 'tool.approval_resolved');
    expect(resolved).toHaveLength(1);
    const winner = answers.find((answer) => answer.status === 200)!;
    expect(resolved[0]).toMatchObject({ decision: winner.body.decision });
  });

  it('counts unread messages where the run executes: posted on the other instance, the 17th is refused, none is lost', async () => {
    const { a } = instances;
    const runId = await a.startRun({ model: 'scripted:one', approval: { tools: ['echo'] } });
    const { required, other } = await waitingApproval(runId);
    // While the run waits for the decision, no message is read: a burst on the instance that does not execute it.
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => sendMessage(other, runId, `m${index}`)));
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(accepted).toHaveLength(16);
    expect(answers.filter((answer) => answer.status === 429)).toHaveLength(14);
    for (const answer of answers.filter((each) => each.status === 429)) {
      expect(answer.body).toMatchObject({ error: { code: 'too_many_messages' } });
    }
    expect((await decide(other, runId, required.approval_id, { decision: 'approve' })).status).toBe(200);
    const events = await other.readEvents(runId);
    expect(
      events
        .filter(ofType('message.received'))
        .map((event) => event.message_id)
        .sort(),
    ).toEqual(accepted.map((answer) => answer.body.message_id).sort());
    // Read, the messages free their places again.
    expect(events.filter(ofType('message.dropped'))).toEqual([]);
  });

  it('continues a chat waiting on one instance with a message posted on the other', async () => {
    const { a } = instances;
    const runId = await a.startRun({ model: 'chat', await_input: true, input: 'Hello.' });
    await eventsMatching(a, runId, ofType('run.awaiting_input'));
    const { other: b } = executorAndOther();
    await statusOn(b, runId, 'awaiting_input');

    const posted = await sendMessage(b, runId, 'Which numbers?');
    expect(posted.status).toBe(202);
    const [received] = await eventsMatching(b, runId, ofType('message.received'));
    expect(received).toMatchObject({ message_id: posted.body.message_id, content: 'Which numbers?', turn: 2 });
    const [, second] = await eventsMatching(b, runId, ofType('run.awaiting_input'), 2);
    expect(second).toMatchObject({ turn: 2 });
    // Cancelled from B, the run ends, so its whole log can be read: the model answered the message.
    expect((await postJson(b, `/v1/runs/${runId}/cancel`, {})).status).toBe(202);
    const events = await b.readEvents(runId, { after: received!.seq });
    const answer = events
      .filter((event): event is RunEventOf<'message.delta'> => event.event === 'message.delta')
      .map((event) => event.delta)
      .join('');
    expect(answer).toContain('You said: Which numbers?');
    expect(events.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
  });
});
