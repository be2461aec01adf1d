import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { LOCAL_OWNER } from '../../src/http/authenticate.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { TEST_CLIENT_OPTIONS } from '../support/ors-test-rig.js';
import { runEventsOf } from '../support/run-events-of.js';
import { singleModelProvider } from '../support/scripted-model.js';
import { settledValue } from '../support/settled-value.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment, deferred } from '../support/test-environment.js';
import {
  chatProvider,
  decide,
  eventsMatching,
  ofType,
  recordingProvider,
  type Sent,
  sendMessage,
  snapshotOf,
  textOf,
} from './hitl-support.js';

/**
 * A person's messages into a live run, and chat mode (docs/protocol.md §7): a message posted while
 * the run works is read by the model before its next turn (`message.received`); with `await_input`
 * an answer without a tool call waits for the next message, the ORS session kept alive all along,
 * until the input timeout completes the run.
 */

const sent: Sent = [];
let modelGate = deferred();
let modelCalled = deferred();
const test = createTestEnvironment('hitl');
let bridge: TestBridge;
let ors: OrsServer;

/**
 * Model `held`: its first turn waits for the test (which posts a message meanwhile) and answers
 * without a tool call; later turns answer at once. It records what it is sent.
 */
const heldProvider = singleModelProvider('held', async function* (request) {
  sent.push(request.messages.map((message) => structuredClone(message)));
  const first = !request.messages.some((message) => message.role === 'assistant');
  if (first) {
    modelCalled.resolve();
    await modelGate.promise;
  }
  yield { type: 'text-delta', delta: first ? 'Thinking.' : 'Read it.' };
  yield { type: 'finish', reason: 'stop' };
});

/** Sessions idle this long are reaped by the ORS server: far shorter than the waits of the chat below. */
const ORS_IDLE_MS = 300;

/**
 * Opens an ORS session nobody pings and waits until the ORS server reaps it: the proof that a whole
 * idle period has passed since the call, for any session that was last active before it.
 */
async function idlePeriodPassed(): Promise<void> {
  const client = new OrsClient({ baseUrl: bridge.orsUrl, ...TEST_CLIENT_OPTIONS });
  const session = await client.openSession({ env: 'hitl', task: { split: 'train', index: 0 } });
  try {
    await eventually(() => !ors.activeSessionIds().includes(session.sid), 'the ORS server to reap an idle session');
  } finally {
    await session.close();
  }
}

beforeAll(async () => {
  ors = createOrsServer({
    environments: [...builtinEnvironments, test.environment],
    sessionIdleMs: ORS_IDLE_MS,
    logError: () => undefined,
  });
  const orsUrl = await ors.listen();
  bridge = await startTestBridge(
    { ORS_URL: orsUrl, RUNBRIDGE_DEFAULT_ENV: 'hitl', RUNBRIDGE_ORS_PING_SECONDS: '0.1' },
    {
      providers: [
        chatProvider,
        heldProvider,
        recordingProvider(
          { gated: [{ toolCalls: [{ name: 'echo', arguments: '{"text":"first"}' }] }, { text: 'Done.' }] },
          sent,
        ),
      ],
    },
  );
});
afterAll(async () => {
  await bridge.shutdown();
  await ors.close();
});

describe('a message posted into a running run', () => {
  it('answers 202 with a message id, and the model reads it in its next turn, even without chat mode', async () => {
    modelGate = deferred();
    modelCalled = deferred();
    const calls = sent.length;
    const runId = await bridge.startRun({ model: 'held' });
    // The model is answering its first turn when the message comes.
    await modelCalled.promise;
    const posted = await sendMessage(bridge, runId, 'Also mind the units.');
    expect(posted.status).toBe(202);
    expect(posted.body.message_id).toMatch(/^msg_/);
    modelGate.resolve();

    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    const received = events.find(ofType('message.received'))!;
    expect(received).toMatchObject({ message_id: posted.body.message_id, content: 'Also mind the units.', turn: 2 });
    const firstOfTurn2 = events.findIndex((event) => 'turn' in event && event.turn === 2);
    expect(events[firstOfTurn2]).toBe(received);
    // The first answer had no tool call, but a message was waiting: the model answered it too.
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', turns: 2, stop_reason: 'no_tool_calls' });
    const second = sent[calls + 1]!;
    expect(second.at(-1)).toMatchObject({ role: 'user' });
    expect(textOf(second.at(-1)!)).toBe('Also mind the units.');
    expect(second.at(-2)).toMatchObject({ role: 'assistant', content: 'Thinking.' });
  });

  it('keeps a message posted during a tool phase until every call of the turn is answered', async () => {
    const calls = sent.length;
    const runId = await bridge.startRun({ model: 'scripted:gated', approval: { tools: ['echo'] } });
    const [required] = await eventsMatching(bridge, runId, ofType('tool.approval_required'));
    const posted = await sendMessage(bridge, runId, [
      { type: 'text', text: 'Look at this:' },
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
    ]);
    expect(posted.status).toBe(202);
    expect((await decide(bridge, runId, required!.approval_id, { decision: 'approve' })).status).toBe(200);

    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    const types = events.map((event) => event.event);
    expect(types.indexOf('message.received')).toBeGreaterThan(types.indexOf('tool.completed'));
    const conversation = sent[calls + 1]!;
    expect(conversation.slice(-2).map((message) => message.role)).toEqual(['tool', 'user']);
    expect(conversation.at(-1)).toMatchObject({
      role: 'user',
      content: [
        { type: 'text', text: 'Look at this:' },
        { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    });
  });

  it('refuses bad bodies (400), more than 16 unread messages (429), and a run that has ended (409)', async () => {
    const runId = await bridge.startRun({ model: 'scripted:gated', approval: { tools: ['echo'] } });
    const [required] = await eventsMatching(bridge, runId, ofType('tool.approval_required'));
    for (const content of ['', '   ', 42, null, [], [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }]]) {
      const answer = await sendMessage(bridge, runId, content);
      expect(answer.status, JSON.stringify(content)).toBe(400);
    }
    const unknownKey = await bridge.fetch(`/v1/runs/${runId}/messages`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ content: 'hi', role: 'user' }),
    });
    expect(unknownKey.status).toBe(400);
    for (let index = 0; index < 16; index++) expect((await sendMessage(bridge, runId, `m${index}`)).status).toBe(202);
    const full = await sendMessage(bridge, runId, 'one too many');
    expect(full.status).toBe(429);
    expect(full.body).toMatchObject({ error: { code: 'too_many_messages' } });

    expect((await decide(bridge, runId, required!.approval_id, { decision: 'approve' })).status).toBe(200);
    const events = await bridge.readEvents(runId);
    expect(events.filter(ofType('message.received')).map((event) => event.content)).toEqual(
      Array.from({ length: 16 }, (_, index) => `m${index}`),
    );
    const ended = await sendMessage(bridge, runId, 'too late');
    expect(ended.status).toBe(409);
    expect(ended.body).toMatchObject({ error: { code: 'run_ended' } });
    expect((await sendMessage(bridge, 'run_unknown', 'hi')).status).toBe(404);
  });

  it('tells the sender of each message the run accepted but ended before reading (message.dropped)', async () => {
    modelGate = deferred();
    modelCalled = deferred();
    // One turn only: the turn the messages arrive in is the last.
    const runId = await bridge.startRun({ model: 'held', max_turns: 1 });
    await modelCalled.promise;
    const posted = [await sendMessage(bridge, runId, 'one'), await sendMessage(bridge, runId, 'two')];
    expect(posted.map((answer) => answer.status)).toEqual([202, 202]);
    modelGate.resolve();

    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.filter(ofType('message.received'))).toEqual([]);
    expect(events.slice(-3)).toMatchObject([
      { event: 'message.dropped', message_id: posted[0]!.body.message_id, reason: 'run_ended' },
      { event: 'message.dropped', message_id: posted[1]!.body.message_id, reason: 'run_ended' },
      { event: 'run.completed', stop_reason: 'no_tool_calls' },
    ]);
  });
});

describe('chat mode (await_input)', () => {
  it('holds a conversation over several exchanges in one episode, its ORS session alive past the idle period', async () => {
    const runId = await bridge.startRun({ model: 'chat', await_input: true, input_timeout_seconds: 2 });
    for (const [index, text] of ['Hello there.', 'What did I say first?', 'Thanks, bye.'].entries()) {
      const waiting = (await eventsMatching(bridge, runId, ofType('run.awaiting_input'), index + 1)).at(-1);
      expect(waiting!.turn).toBe(index + 1);
      const snapshot = await snapshotOf(bridge, runId);
      expect(snapshot.status).toBe('awaiting_input');
      // Longer than the ORS server lets an idle session live: only the bridge's pings keep it.
      await idlePeriodPassed();
      const posted = await sendMessage(bridge, runId, text);
      expect(posted.status).toBe(202);
    }
    // No fourth message: the input timeout completes the run.
    const events = await bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'no_tool_calls', turns: 4 });
    expect(events.at(-2)).toMatchObject({ event: 'run.awaiting_input', turn: 4 });
    expect(events.filter(ofType('message.received')).map((event) => [event.content, event.turn])).toEqual([
      ['Hello there.', 2],
      ['What did I say first?', 3],
      ['Thanks, bye.', 4],
    ]);
    const answers = events.filter(ofType('message.delta')).map((event) => event.delta);
    expect(answers.at(-1)).toBe('You said: Thanks, bye. [4 user messages]');
    expect(events.some((event) => event.event === 'run.failed')).toBe(false);
    expect(ors.activeSessionIds()).toEqual([]);
  }, 30_000);

  it('takes a cursor just past the log of a running run once the log reaches it, and refuses one that stays past it', async () => {
    // Waiting a minute for a message, so the run is surely still running when the cursor past it comes,
    // however busy the machine (with 10 s, a run that had ended refused the cursor at once, once, in CI).
    const runId = await bridge.startRun({ model: 'chat', await_input: true, input_timeout_seconds: 60 });
    try {
      const [waiting] = await eventsMatching(bridge, runId, ofType('run.awaiting_input'));
      // Another instance, executing the run, may already have served the next event to the client.
      const ahead = waiting!.seq + 1;
      const { log } = await bridge.registry.open(runId, LOCAL_OWNER);
      const wakes = vi.spyOn(log, 'nextWake');
      const resumed = bridge.fetch(`/v1/runs/${runId}/events?after=${ahead}`);
      // The request parks on the log (nobody else reads it while the run waits for a message).
      await eventually(() => wakes.mock.calls.length > 0, 'the request to park on the log');
      wakes.mockRestore();
      expect((await sendMessage(bridge, runId, 'Hello.')).status).toBe(202);
      const response = await resumed;
      expect(response.status).toBe(200);
      const [next] = await runEventsOf(response.body!, 1);
      expect(next!.seq).toBe(ahead + 1);

      const [again] = await eventsMatching(bridge, runId, ofType('run.awaiting_input'), 2);
      // The stream read above has hung up: no reader is left to wait on the log but the next request.
      await eventually(() => bridge.registry.localStats().subscribers === 0, 'the first stream gone');
      const parking = vi.spyOn(log, 'nextWake');
      const asked = bridge.fetch(`/v1/runs/${runId}/events?after=${again!.seq + 100}`);
      const answer = settledValue(asked);
      // It waits on the log for the cursor first: parked, and not answered yet.
      await eventually(() => parking.mock.calls.length > 0, 'the request to park on the log');
      parking.mockRestore();
      expect(answer.settled).toBe(false);
      const past = await asked;
      expect(past.status).toBe(400);
      expect(await past.json()).toMatchObject({ error: { code: 'invalid_cursor' } });
      expect((await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as { status: string }).toMatchObject({
        status: 'awaiting_input',
      });
    } finally {
      await bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST' });
    }
  }, 30_000);

  it('really does reap an unpinged session after the idle period (the control for the test above)', async () => {
    const client = new OrsClient({ baseUrl: bridge.orsUrl, ...TEST_CLIENT_OPTIONS });
    const session = await client.openSession({ env: 'hitl', task: { split: 'train', index: 0 } });
    try {
      await idlePeriodPassed();
      expect(ors.activeSessionIds()).not.toContain(session.sid);
    } finally {
      await session.close();
    }
  });

  it('refuses input_timeout_seconds without await_input (400)', async () => {
    const response = await bridge.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'chat', input_timeout_seconds: 5 }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('await_input');
  });
});
