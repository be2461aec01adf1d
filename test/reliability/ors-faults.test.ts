import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import type { RunEvent, RunEventOf } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { eventually } from '../support/eventually.js';
import { type FaultRule, type OrsFault, OrsFaultProxy } from '../support/ors-fault-proxy.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { createLedger, type Ledger, type PlannedCall, planInput, recordOutput } from './ledger-fixtures.js';

/**
 * The bridge against the real built-in ORS server with a fault proxy in between (docs/protocol.md §5, §6):
 * every run ends in the right terminal event with a clear code, no tool call runs twice, and no
 * session is left open on a server the bridge can still reach.
 */

interface Rig {
  ledger: Ledger;
  ors: OrsServer;
  proxy: OrsFaultProxy;
  bridge: TestBridge;
}

const rigs: Rig[] = [];

async function startRig(options: { env?: Record<string, string>; sessionIdleMs?: number } = {}): Promise<Rig> {
  const ledger = createLedger();
  // Pings every 100 ms keep healthy call streams far from the bridge's silence limit.
  const ors = createOrsServer({
    environments: [ledger.environment],
    pingIntervalMs: 100,
    sessionIdleMs: options.sessionIdleMs,
    logError: () => undefined,
  });
  const proxy = await OrsFaultProxy.start(await ors.listen(0, '127.0.0.1'));
  const bridge = await startTestBridge(
    {
      ORS_URL: proxy.url,
      RUNBRIDGE_DEFAULT_ENV: 'ledger',
      RUNBRIDGE_MODEL: 'ledger',
      RUNBRIDGE_ORS_CALL_SILENCE_SECONDS: '0.5',
      RUNBRIDGE_ORS_PING_SECONDS: '600',
      // Retries as many as ever, after 10 ms doubled each time rather than 200 ms.
      RUNBRIDGE_ORS_RETRY_SECONDS: '0.01',
      RUNBRIDGE_TOOL_OUTPUT_EVENT_CHARS: '100000',
      ...options.env,
    },
    { providers: [ledger.provider] },
  );
  const rig = { ledger, ors, proxy, bridge };
  rigs.push(rig);
  return rig;
}

afterEach(async () => {
  for (const rig of rigs.splice(0)) {
    await rig.bridge.shutdown();
    await rig.proxy.close();
    await rig.ors.close();
  }
});

async function play(rig: Rig, calls: PlannedCall[]): Promise<RunEvent[]> {
  const runId = await rig.bridge.startRun({ input: planInput(calls) });
  const events = await rig.bridge.readEvents(runId);
  assertEventOrder(events);
  return events;
}

function completions(events: RunEvent[]): Array<RunEventOf<'tool.completed'>> {
  return events.filter((event): event is RunEventOf<'tool.completed'> => event.event === 'tool.completed');
}

/** Every planned call ran exactly once and answered in full; the run completed; no session is open. */
function expectCleanCompletion(rig: Rig, calls: PlannedCall[], events: RunEvent[]): void {
  expect(events.at(-1), JSON.stringify(events.at(-1))).toMatchObject({ event: 'run.completed' });
  for (const call of calls) expect(rig.ledger.starts.get(call.id), call.id).toBe(1);
  const outputs = completions(events).map((event) => ({ error: event.error, output: event.output }));
  expect(outputs).toEqual(
    calls.map((call) => ({
      error: false,
      output: call.tool === 'hold' ? `held ${call.id}` : recordOutput(call.id, call.size),
    })),
  );
  expect(rig.ors.activeSessionIds()).toEqual([]);
}

const CALL = '/ledger/call';

describe('ORS faults the bridge recovers from', () => {
  it('resumes a call stream dropped right after task_id without running the tool again', async () => {
    const rig = await startRig();
    rig.proxy.inject({ path: CALL, fault: { type: 'drop-after-task-id' } });
    const calls: PlannedCall[] = [
      { tool: 'record', id: 'a' },
      { tool: 'record', id: 'b', finished: true },
    ];
    const events = await play(rig, calls);
    expectCleanCompletion(rig, calls, events);
    expect(rig.proxy.requestsTo(CALL)).toHaveLength(3);
  });

  it('resumes a stream dropped midway through a chunked result and delivers the whole result once', async () => {
    const rig = await startRig();
    rig.proxy.inject({ path: CALL, fault: { type: 'drop-after-bytes', bytes: 6000 } });
    const calls: PlannedCall[] = [{ tool: 'record', id: 'big', size: 20_000, finished: true }];
    const events = await play(rig, calls);
    expectCleanCompletion(rig, calls, events);
  });

  it.each<[string, OrsFault]>([
    ['reattaches to a tool still running when its stream drops', { type: 'drop-after-task-id' }],
    [
      'gives up on a silent stream after the silence limit and collects the result by task_id',
      { type: 'silent-after-task-id' },
    ],
  ])('%s', async (_behaviour, fault) => {
    const rig = await startRig();
    rig.proxy.inject({ path: CALL, fault });
    const calls: PlannedCall[] = [{ tool: 'hold', id: 'slow', finished: true }];
    const runId = await rig.bridge.startRun({ input: planInput(calls) });
    await rig.ledger.started('slow');
    // Released only once the bridge came back for the result: the tool was running all along.
    await rig.proxy.waitForRequest((request) => request.path === CALL && request.fault === undefined);
    rig.ledger.release('slow');
    const events = await rig.bridge.readEvents(runId);
    assertEventOrder(events);
    expectCleanCompletion(rig, calls, events);
  });

  it('retries 503, 429 and resets on every endpoint of the episode, and still deletes the session', async () => {
    const rig = await startRig();
    const faults: FaultRule[] = [
      { path: '/create_session', fault: { type: 'status', status: 503 }, times: 2 },
      { path: '/create_session', fault: { type: 'reset-before-response' } },
      { path: '/create', fault: { type: 'status', status: 503 }, times: 2 },
      { path: '/create', fault: { type: 'status', status: 429, retryAfter: '0' } },
      { path: '/ledger/prompt', fault: { type: 'status', status: 503 } },
      { path: '/ledger/prompt', fault: { type: 'reset-before-response' } },
      // A 500 is retried; only the same 500 twice in a row is taken as the server's answer (below).
      { path: '/ledger/task_tools', fault: { type: 'status', status: 500 } },
      { path: '/ledger/task_tools', fault: { type: 'status', status: 502 } },
      { path: CALL, fault: { type: 'status', status: 503 }, times: 2 },
      { path: CALL, fault: { type: 'status', status: 429, retryAfter: '0' } },
      { path: '/delete', fault: { type: 'status', status: 503 } },
      { path: '/delete_session', fault: { type: 'reset-before-response' } },
    ];
    for (const rule of faults) rig.proxy.inject(rule);
    const calls: PlannedCall[] = [{ tool: 'record', id: 'r', finished: true }];
    const events = await play(rig, calls);
    expectCleanCompletion(rig, calls, events);
    const injected = rig.proxy.requests.filter((request) => request.fault !== undefined).length;
    expect(injected).toBe(faults.reduce((sum, rule) => sum + (rule.times ?? 1), 0));
  });
});

/**
 * A transient 500: each says something else, as the same 500 twice in a row is taken as the server's
 * deterministic answer and not retried (a test below).
 */
const transient500 = fc.nat().map((n): OrsFault => ({ type: 'status', status: 500, detail: `crash #${n}` }));

/** Faults a run survives, by endpoint; each is retried (idempotent or surely unseen) or resumed by task_id. */
const RECOVERABLE: Record<string, fc.Arbitrary<OrsFault>> = {
  '/create_session': fc.oneof(
    fc.constantFrom<OrsFault>({ type: 'status', status: 503 }, { type: 'reset-before-response' }),
    transient500,
    fc.integer({ min: 1, max: 60 }).map((bytes): OrsFault => ({ type: 'drop-after-bytes', bytes })),
  ),
  '/create': fc.constantFrom<OrsFault>(
    { type: 'status', status: 503 },
    { type: 'status', status: 429, retryAfter: '0' },
  ),
  '/ledger/prompt': fc.constantFrom<OrsFault>(
    { type: 'status', status: 502 },
    { type: 'reset-before-response' },
    { type: 'drop-after-bytes', bytes: 10 },
  ),
  '/ledger/task_tools': fc.constantFrom<OrsFault>({ type: 'status', status: 503 }, { type: 'reset-before-response' }),
  [CALL]: fc.oneof(
    fc.constantFrom<OrsFault>(
      { type: 'drop-after-task-id' },
      { type: 'silent-after-task-id' },
      { type: 'status', status: 503 },
    ),
    transient500,
    fc.integer({ min: 100, max: 30_000 }).map((bytes): OrsFault => ({ type: 'drop-after-bytes', bytes })),
  ),
  '/delete': fc.constantFrom<OrsFault>({ type: 'status', status: 503 }, { type: 'reset-before-response' }),
  '/delete_session': fc.oneof(fc.constantFrom<OrsFault>({ type: 'reset-before-response' }), transient500),
};

const faultRule = fc
  .constantFrom(...Object.keys(RECOVERABLE))
  .chain((path) => RECOVERABLE[path]!.map((fault): FaultRule => ({ path, fault })));

describe('random recoverable ORS faults', () => {
  it('never fail a run, run a tool twice or leave a session open', async () => {
    const rig = await startRig();
    let runs = 0;
    let injected = 0;
    let serial = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 12_000 }), { minLength: 1, maxLength: 3 }),
        fc.array(faultRule, { minLength: 1, maxLength: 4 }),
        async (sizes, faults) => {
          const run = ++serial;
          const calls = sizes.map(
            (size, index): PlannedCall => ({
              tool: 'record',
              id: `${run}.${index}`,
              size,
              finished: index === sizes.length - 1,
            }),
          );
          const before = rig.proxy.requests.filter((request) => request.fault !== undefined).length;
          for (const rule of faults) rig.proxy.inject(rule);
          const events = await play(rig, calls);
          expectCleanCompletion(rig, calls, events);
          runs++;
          injected += rig.proxy.requests.filter((request) => request.fault !== undefined).length - before;
        },
      ),
      { numRuns: 25 },
    );
    console.info(`random ORS faults: ${injected} injected over ${runs} runs`);
    expect(runs).toBe(25);
    expect(injected).toBeGreaterThan(0);
  });
});

describe('ORS faults that end a run', () => {
  it('fails with ors_call_interrupted when a call stream is silent before the task is named, and does not resend it', async () => {
    const rig = await startRig();
    rig.proxy.inject({ path: CALL, fault: { type: 'silent' } });
    const events = await play(rig, [{ tool: 'record', id: 'once' }]);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'ors_call_interrupted' });
    expect(completions(events)).toEqual([expect.objectContaining({ tool: 'record', error: true })]);
    expect(rig.proxy.requestsTo(CALL)).toHaveLength(1);
    expect(rig.ledger.starts.get('once') ?? 0).toBeLessThanOrEqual(1);
    expect(rig.ors.activeSessionIds()).toEqual([]);
  });

  it('fails with ors_unavailable when 503s outlast the retries, with the session still deleted', async () => {
    const rig = await startRig();
    rig.proxy.inject({ path: CALL, fault: { type: 'status', status: 503, detail: 'overloaded' }, times: 1000 });
    const events = await play(rig, [{ tool: 'record', id: 'never' }]);
    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'ors_unavailable' });
    expect(failed?.event === 'run.failed' && failed.error).toMatch(
      /503: overloaded.*5 attempts.*running and reachable/,
    );
    expect(rig.ledger.starts.get('never')).toBeUndefined();
    expect(rig.ors.activeSessionIds()).toEqual([]);
  });

  it("fails with ors_server_error and the server's own message when a 500 repeats, without retrying it further", async () => {
    const rig = await startRig();
    const detail = 'Environment setup failed: no sandbox available';
    rig.proxy.inject({ path: '/ledger/prompt', fault: { type: 'status', status: 500, detail }, times: 1000 });
    const events = await play(rig, [{ tool: 'record', id: 'never' }]);
    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'ors_server_error' });
    const message = failed?.event === 'run.failed' ? failed.error : '';
    expect(message).toBe(`GET /ledger/prompt: the ORS server failed: ${detail} (HTTP 500, 2 attempts).`);
    expect(rig.proxy.requestsTo('/ledger/prompt')).toHaveLength(2);
    expect(rig.ors.activeSessionIds()).toEqual([]);
  });

  it('fails with ors_server_error when a call is answered the same 500 twice, and never reaches the tool', async () => {
    const rig = await startRig();
    rig.proxy.inject({ path: CALL, fault: { type: 'status', status: 500, detail: 'tool host down' }, times: 1000 });
    const events = await play(rig, [{ tool: 'record', id: 'never' }]);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'ors_server_error' });
    expect(rig.proxy.requestsTo(CALL)).toHaveLength(2);
    expect(rig.ledger.starts.get('never')).toBeUndefined();
  });

  it('fails with ors_session_lost when the server expires the session mid-episode', async () => {
    const rig = await startRig({ sessionIdleMs: 1000 });
    const calls: PlannedCall[] = [
      { tool: 'record', id: 'before' },
      { tool: 'record', id: 'after', waitFor: 'expired' },
    ];
    const runId = await rig.bridge.startRun({ input: planInput(calls) });
    await rig.ledger.started('expired');
    // The model now waits; the bridge pings every 600 s, so the server reaps the idle session.
    await eventually(() => rig.ors.activeSessionIds().length === 0, 'the idle session reaped');
    rig.ledger.release('expired');
    const events = await rig.bridge.readEvents(runId);
    assertEventOrder(events);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'ors_session_lost' });
    expect(completions(events).map((event) => [event.tool_call_id, event.error])).toEqual([
      ['call_0', false],
      ['call_1', true],
    ]);
    expect(rig.ledger.starts.get('before')).toBe(1);
    expect(rig.ledger.starts.get('after')).toBeUndefined();
  });

  it('fails with ors_session_lost when pings answer 404, and still deletes the session on the server', async () => {
    const rig = await startRig({ env: { RUNBRIDGE_ORS_PING_SECONDS: '0.05' } });
    rig.proxy.inject({
      path: '/ping',
      fault: { type: 'status', status: 404, detail: 'Session not found' },
      times: 1000,
    });
    const events = await play(rig, [
      { tool: 'record', id: 'a' },
      { tool: 'record', id: 'b', waitFor: 'forever' },
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'ors_session_lost' });
    expect(rig.ledger.starts.get('b')).toBeUndefined();
    expect(rig.ors.activeSessionIds()).toEqual([]);
  });

  it('fails with ors_unavailable when the server dies while a dropped call is being resumed, without running the tool again', async () => {
    const rig = await startRig();
    // The drop guarantees the bridge holds the task id (the cut comes right after it), so the death
    // below hits a call the bridge may resume, never one it must give up as possibly started.
    rig.proxy.inject({ path: CALL, fault: { type: 'drop-after-task-id' } });
    const runId = await rig.bridge.startRun({ input: planInput([{ tool: 'hold', id: 'doomed' }]) });
    await rig.proxy.waitForRequest((request) => request.path === CALL && request.fault === undefined);
    await rig.proxy.close();
    const events = await rig.bridge.readEvents(runId);
    assertEventOrder(events);
    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'ors_unavailable' });
    expect(failed?.event === 'run.failed' && failed.error).toMatch(/ECONNREFUSED.*running and reachable/);
    expect(completions(events)).toEqual([expect.objectContaining({ tool: 'hold', error: true })]);
    expect(rig.ledger.starts.get('doomed')).toBe(1);
  });

  it('fails with ors_unavailable when the server shuts down mid-episode and the next call finds it gone', async () => {
    const ledger = createLedger();
    const ors = createOrsServer({ environments: [ledger.environment], pingIntervalMs: 100, logError: () => undefined });
    const bridge = await startTestBridge(
      {
        ORS_URL: await ors.listen(0, '127.0.0.1'),
        RUNBRIDGE_DEFAULT_ENV: 'ledger',
        RUNBRIDGE_MODEL: 'ledger',
        RUNBRIDGE_ORS_RETRY_SECONDS: '0.01',
      },
      { providers: [ledger.provider] },
    );
    try {
      const runId = await bridge.startRun({
        input: planInput([
          { tool: 'hold', id: 'cut' },
          { tool: 'record', id: 'next' },
        ]),
      });
      await ledger.started('cut');
      await ors.close();
      const events = await bridge.readEvents(runId);
      assertEventOrder(events);
      expect(events.at(-1)).toMatchObject({ event: 'run.failed', code: 'ors_unavailable' });
      expect(completions(events).map((event) => [event.tool, event.error, event.output])).toEqual([
        ['hold', true, expect.stringMatching(/ORS server shut down/)],
        ['record', true, expect.stringMatching(/ECONNREFUSED/)],
      ]);
      expect(ledger.starts.get('next')).toBeUndefined();
      expect(ors.activeSessionIds()).toEqual([]);
    } finally {
      await bridge.shutdown();
      await ors.close();
    }
  });
});
