import { describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import type { RunPage } from '../../src/client/client-types.js';
import type { RunEvent, RunEventOf } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { useTestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment } from '../support/test-environment.js';
import {
  decide,
  echo,
  eventsMatching,
  ofType,
  recordingProvider,
  type Sent,
  snapshotOf,
  textOf,
} from './hitl-support.js';

/**
 * Tool approvals over HTTP (docs/protocol.md §7): a listed call waits for a decision, the run shows
 * `requires_action` with the call in `pending_approvals`, and nothing reaches the environment until
 * the decision; approve runs it (with edited arguments, if any), deny answers the model instead, the
 * timeout decides `on_timeout`, the first decision wins.
 */

const sent: Sent = [];
const test = createTestEnvironment('hitl');
const bridge = useTestBridge(
  { RUNBRIDGE_DEFAULT_ENV: 'hitl' },
  {
    environments: [...builtinEnvironments, test.environment],
    providers: [
      recordingProvider(
        {
          one: [{ toolCalls: [echo('first')] }, { text: 'Done.' }],
          two: [{ toolCalls: [echo('alpha'), echo('beta')] }, { text: 'Done.' }],
          mixed: [{ toolCalls: [{ name: 'hint', arguments: '{}' }, echo('gated')] }, { text: 'Done.' }],
          broken: [
            {
              toolCalls: [
                { name: 'nope', arguments: '{}' },
                { name: 'echo', arguments: 'not json' },
              ],
            },
            { text: 'Done.' },
          ],
        },
        sent,
      ),
    ],
  },
);

/** Starts a run of model `script` with `approval`, and waits until its first `count` approvals are announced. */
async function startWaiting(script: string, approval: Record<string, unknown>, count = 1) {
  const runId = await bridge.startRun({ model: `scripted:${script}`, approval });
  const required = await eventsMatching(bridge, runId, ofType('tool.approval_required'), count);
  return { runId, required };
}

/** The conversations sent to the model in run `runId`'s second turn (the one after the decisions). */
function secondTurnConversation(before: number) {
  const conversation = sent[before + 1];
  if (!conversation) throw new Error('the model was not called a second time');
  return conversation;
}

function echoRuns(): number {
  return test.probe.runs.get('echo') ?? 0;
}

describe('a tool call that waits for approval', () => {
  it('waits in requires_action with the call listed, sends nothing to ORS, then runs it once approved', async () => {
    const runsBefore = echoRuns();
    const { runId, required } = await startWaiting('one', { tools: ['echo'] });
    const [request] = required as [RunEventOf<'tool.approval_required'>];
    expect(request).toMatchObject({ tool: 'echo', arguments: { text: 'first' }, turn: 1 });
    expect(request.approval_id).toMatch(/^appr_/);
    expect(request.expires_at).toBeGreaterThan(request.timestamp + 599);

    const waiting = await snapshotOf(bridge, runId);
    expect(waiting.status).toBe('requires_action');
    expect(waiting.pending_approvals).toEqual([
      {
        approval_id: request.approval_id,
        tool: 'echo',
        tool_call_id: request.tool_call_id,
        arguments: { text: 'first' },
        turn: 1,
        call_index: request.call_index,
        expires_at: request.expires_at,
      },
    ]);
    // The list summarises the call: a preview of its arguments, not them (docs/protocol.md §2.6).
    const listed = (await (await bridge.fetch('/v1/runs?limit=1')).json()) as RunPage;
    expect(listed.data[0]?.pending_approvals).toEqual([
      {
        approval_id: request.approval_id,
        tool: 'echo',
        tool_call_id: request.tool_call_id,
        turn: 1,
        call_index: request.call_index,
        expires_at: request.expires_at,
        arguments_preview: '{"text":"first"}',
        arguments_truncated: false,
      },
    ]);
    expect(echoRuns()).toBe(runsBefore);

    const answer = await decide(bridge, runId, request.approval_id, { decision: 'approve' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      event: 'tool.approval_resolved',
      approval_id: request.approval_id,
      decision: 'approve',
      by: 'client',
      edited: false,
      arguments: { text: 'first' },
    });

    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    const types = events.map((event) => event.event);
    expect(types.indexOf('tool.approval_resolved')).toBeLessThan(types.indexOf('tool.started'));
    expect(events.find((event) => event.event === 'tool.completed')).toMatchObject({ output: 'first', error: false });
    expect(echoRuns()).toBe(runsBefore + 1);
    const done = await snapshotOf(bridge, runId);
    expect(done).toMatchObject({ status: 'completed', pending_approvals: [] });
  });

  it('never sends a denied call to ORS, and tells the model it was denied and why', async () => {
    const runsBefore = echoRuns();
    const calls = sent.length;
    const { runId, required } = await startWaiting('one', { tools: '*' });
    const answer = await decide(bridge, runId, required[0]!.approval_id, {
      decision: 'deny',
      reason: 'not on a Friday',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ decision: 'deny', by: 'client', reason: 'not on a Friday' });

    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.some((event) => event.event === 'tool.started')).toBe(false);
    expect(echoRuns()).toBe(runsBefore);
    const told = secondTurnConversation(calls).at(-1)!;
    expect(told).toMatchObject({ role: 'tool', toolCallId: required[0]!.tool_call_id, isError: true });
    expect(textOf(told)).toContain('denied');
    expect(textOf(told)).toContain('not on a Friday');
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'no_tool_calls' });
  });

  it('runs an approved call with the edited arguments and tells the model they were edited', async () => {
    const calls = sent.length;
    const { runId, required } = await startWaiting('one', { tools: ['echo'] });
    const answer = await decide(bridge, runId, required[0]!.approval_id, {
      decision: 'approve',
      arguments: { text: 'edited by a person' },
    });
    expect(answer.body).toMatchObject({ edited: true, arguments: { text: 'edited by a person' } });

    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.find((event) => event.event === 'tool.started')).toMatchObject({
      arguments: { text: 'edited by a person' },
      preview: 'edited by a person',
    });
    expect(events.find((event) => event.event === 'tool.completed')).toMatchObject({ output: 'edited by a person' });
    const result = textOf(secondTurnConversation(calls).at(-1)!);
    expect(result).toContain('edited the arguments');
    expect(result).toContain('edited by a person');
  });

  it('refuses edited arguments that are not a JSON object, arguments with a denial, and unknown keys (400)', async () => {
    const { runId, required } = await startWaiting('one', { tools: ['echo'] });
    const id = required[0]!.approval_id;
    for (const body of [
      { decision: 'approve', arguments: ['text'] },
      { decision: 'approve', arguments: 'text' },
      { decision: 'approve', arguments: null },
      { decision: 'deny', arguments: { text: 'x' } },
      { decision: 'maybe' },
      { decision: 'approve', note: 'hi' },
      {},
    ]) {
      const answer = await decide(bridge, runId, id, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ error: { code: 'invalid_request' } });
    }
    expect((await snapshotOf(bridge, runId)).status).toBe('requires_action');
    expect((await decide(bridge, runId, id, { decision: 'approve' })).status).toBe(200);
    await bridge.readEvents(runId);
  });

  it('answers a later decision 409 approval_resolved, an unknown approval 404, and a finished run 409', async () => {
    const { runId, required } = await startWaiting('one', { tools: ['echo'] });
    const id = required[0]!.approval_id;
    expect((await decide(bridge, runId, 'appr_nope', { decision: 'approve' })).body).toMatchObject({
      error: { code: 'approval_not_found' },
    });
    expect((await decide(bridge, runId, 'appr_nope', { decision: 'approve' })).status).toBe(404);
    expect((await decide(bridge, runId, id, { decision: 'deny' })).status).toBe(200);
    const later = await decide(bridge, runId, id, { decision: 'approve' });
    expect(later.status).toBe(409);
    expect(later.body).toMatchObject({ error: { code: 'approval_resolved' } });
    await bridge.readEvents(runId);
    expect((await decide(bridge, runId, id, { decision: 'approve' })).status).toBe(409);
    expect((await decide(bridge, 'run_unknown', id, { decision: 'approve' })).status).toBe(404);
  });

  it('decides two calls of one turn independently, in the reverse order, each answered in the order decided', async () => {
    const runsBefore = echoRuns();
    const { runId, required } = await startWaiting('two', { tools: ['echo'] }, 2);
    const [alpha, beta] = required as [RunEventOf<'tool.approval_required'>, RunEventOf<'tool.approval_required'>];
    expect([alpha.arguments, beta.arguments]).toEqual([{ text: 'alpha' }, { text: 'beta' }]);
    expect((await snapshotOf(bridge, runId)).pending_approvals.map((entry) => entry.approval_id)).toEqual([
      alpha.approval_id,
      beta.approval_id,
    ]);

    expect((await decide(bridge, runId, beta.approval_id, { decision: 'deny', reason: 'no beta' })).status).toBe(200);
    const half = await snapshotOf(bridge, runId);
    expect(half.status).toBe('requires_action');
    expect(half.pending_approvals.map((entry) => entry.approval_id)).toEqual([alpha.approval_id]);
    expect(echoRuns()).toBe(runsBefore);
    expect((await decide(bridge, runId, alpha.approval_id, { decision: 'approve' })).status).toBe(200);

    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    const resolved = events.filter(ofType('tool.approval_resolved'));
    expect(resolved.map((event) => [event.approval_id, event.decision])).toEqual([
      [beta.approval_id, 'deny'],
      [alpha.approval_id, 'approve'],
    ]);
    expect(events.filter(ofType('tool.started')).map((event) => event.arguments)).toEqual([{ text: 'alpha' }]);
    expect(echoRuns()).toBe(runsBefore + 1);
  });

  it('holds only the listed tools: an unlisted call of the same turn runs after the decision, in model order', async () => {
    const { runId, required } = await startWaiting('mixed', { tools: ['echo'] });
    expect(required.map((event) => event.tool)).toEqual(['echo']);
    expect((await decide(bridge, runId, required[0]!.approval_id, { decision: 'approve' })).status).toBe(200);
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    const started = events.filter(ofType('tool.started'));
    expect(started.map((event) => [event.tool, event.call_index])).toEqual([
      ['hint', started[0]!.call_index],
      ['echo', started[0]!.call_index + 1],
    ]);
    expect(required[0]!.call_index).toBe(started[1]!.call_index);
  });

  it('holds no call that could not reach ORS anyway: an unknown tool, arguments that are not JSON', async () => {
    const runId = await bridge.startRun({ model: 'scripted:broken', approval: { tools: '*' } });
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.some((event) => event.event === 'tool.approval_required')).toBe(false);
    expect(events.filter(ofType('tool.completed')).map((event) => [event.tool, event.error])).toEqual([
      ['nope', true],
      ['echo', true],
    ]);
  });

  it('lets exactly one of two clients racing to decide win; the other gets 409', async () => {
    for (let round = 0; round < 5; round++) {
      const { runId, required } = await startWaiting('one', { tools: ['echo'] });
      const id = required[0]!.approval_id;
      const answers = await Promise.all([
        decide(bridge, runId, id, { decision: 'approve' }),
        decide(bridge, runId, id, { decision: 'deny', reason: 'racing' }),
      ]);
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([200, 409]);
      const winner = answers.find((answer) => answer.status === 200)!;
      const events = await bridge.readEvents(runId);
      const resolved = events.filter(ofType('tool.approval_resolved'));
      expect(resolved).toHaveLength(1);
      expect(resolved[0]!.decision).toBe(winner.body.decision);
      expect(answers.find((answer) => answer.status === 409)!.body).toMatchObject({
        error: { code: 'approval_resolved' },
      });
    }
  });
});

describe('the approval timeout', () => {
  it('denies by default once timeout_seconds pass, by "timeout", and a decision after it is 409', async () => {
    const runsBefore = echoRuns();
    const { runId, required } = await startWaiting('one', { tools: ['echo'], timeout_seconds: 0.2 });
    const [resolved] = await eventsMatching(bridge, runId, ofType('tool.approval_resolved'));
    expect(resolved).toMatchObject({ decision: 'deny', by: 'timeout', approval_id: required[0]!.approval_id });
    expect((await decide(bridge, runId, required[0]!.approval_id, { decision: 'approve' })).status).toBe(409);
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.some((event) => event.event === 'tool.started')).toBe(false);
    expect(echoRuns()).toBe(runsBefore);
  });

  it('approves on timeout with on_timeout: "approve", and the call runs', async () => {
    const runsBefore = echoRuns();
    const { runId } = await startWaiting('one', { tools: ['echo'], timeout_seconds: 0.2, on_timeout: 'approve' });
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.find((event) => event.event === 'tool.approval_resolved')).toMatchObject({
      decision: 'approve',
      by: 'timeout',
    });
    expect(events.find((event) => event.event === 'tool.completed')).toMatchObject({ output: 'first' });
    expect(echoRuns()).toBe(runsBefore + 1);
  });
});

describe('a run that waits for approval and is cancelled', () => {
  it('ends cleanly: the approval resolves by "cancel", run.cancelled, and the ORS session is deleted', async () => {
    const { runId, required } = await startWaiting('one', { tools: ['echo'] });
    const cancel = await bridge.fetch(`/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(cancel.status).toBe(202);
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    const tail = events.slice(-2) as RunEvent[];
    expect(tail[0]).toMatchObject({
      event: 'tool.approval_resolved',
      approval_id: required[0]!.approval_id,
      decision: 'deny',
      by: 'cancel',
    });
    expect(tail[1]).toMatchObject({ event: 'run.cancelled', reason: 'client' });
    expect(await snapshotOf(bridge, runId)).toMatchObject({ status: 'cancelled', pending_approvals: [] });
    expect(bridge.orsServer?.activeSessionIds()).toEqual([]);
    expect((await decide(bridge, runId, required[0]!.approval_id, { decision: 'approve' })).status).toBe(409);
  });
});
