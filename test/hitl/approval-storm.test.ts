import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { useTestBridge } from '../support/start-test-bridge.js';
import { decide, eventsMatching, ofType } from './hitl-support.js';

/**
 * A model that makes thousands of calls in one turn under `approval: {tools: "*"}` (docs/protocol.md
 * §7.10, issue 34): each decision, and the timeout that decides them all at once, costs the same
 * however many calls wait, so a storm is decided in time linear in its size and the server keeps
 * answering meanwhile.
 *
 * A generous bound on CPU time (not wall time, which a shared machine stretches) that only a cost
 * growing with the square of the storm misses, at a size where the two differ by more than 10×.
 * Measured on a shared 2-core machine with 3 000 calls: deciding them one by one, 64 requests in
 * flight, ran 58 s until a request's connection was reset when each decision scanned the turn's calls
 * and the log, and takes 3.5–4 s of CPU since (client and server, HTTP included). How long `/health`
 * waits while the timeout decides them all (77 s then, 20–250 ms since) is a speed, not checked here.
 */

const CALLS = 3000;
/** CPU this process (the bridge and the test's client) may spend deciding the storm one call at a time. */
const DECIDE_CPU_BOUND_MS = 20_000;
/** Long for a test: 2 × 3 000 approvals go over HTTP on a machine that may be shared. */
const STORM_TIMEOUT_MS = 120_000;
/** Decisions in flight at once, as a page or a script of a person deciding in bulk would send them. */
const IN_FLIGHT = 64;

const calls = Array.from({ length: CALLS }, (_, index) => ({
  name: 'calculator',
  arguments: JSON.stringify({ expression: `${index} + 1` }),
}));
const bridge = useTestBridge(
  {
    RUNBRIDGE_DEFAULT_ENV: 'arith',
    RUNBRIDGE_MAX_TOOL_CALLS_PER_TURN: String(CALLS),
    RUNBRIDGE_MAX_EVENTS_PER_RUN: String(4 * CALLS),
  },
  { providers: [scriptedProvider({ storm: [{ toolCalls: calls }] })] },
);

/**
 * Asks `/health` again and again, one request after another, while `work` runs; resolves with the
 * work's result and the statuses of the answers that came before the work ended.
 */
async function whileProbing<T>(work: () => Promise<T>): Promise<{ result: T; healthStatuses: number[] }> {
  const statuses: number[] = [];
  let done = false;
  const probing = (async () => {
    while (!done) {
      const response = await bridge.fetch('/health');
      await response.body?.cancel();
      if (!done) statuses.push(response.status);
    }
  })();
  try {
    const result = await work();
    return { result, healthStatuses: [...statuses] };
  } finally {
    done = true;
    await probing;
  }
}

async function startStorm(approval: Record<string, unknown>): Promise<{ runId: string; approvalIds: string[] }> {
  const runId = await bridge.startRun({ model: 'scripted:storm', max_turns: 1, approval: { tools: '*', ...approval } });
  const required = await eventsMatching(bridge, runId, ofType('tool.approval_required'), CALLS, 60_000);
  return { runId, approvalIds: required.map((event) => event.approval_id) };
}

function expectAllDenied(events: RunEvent[], by: string): void {
  assertEventOrder(events);
  const resolved = events.filter((event) => event.event === 'tool.approval_resolved');
  expect(resolved).toHaveLength(CALLS);
  expect(resolved.every((event) => event.decision === 'deny' && event.by === by)).toBe(true);
  expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'max_turns' });
}

describe(`a storm of ${CALLS} calls waiting for approval`, () => {
  it(
    'is decided call by call at a cost linear in its size',
    async () => {
      const { runId, approvalIds } = await startStorm({});
      const cpu = process.cpuUsage();
      const statuses: number[] = [];
      const queue = [...approvalIds];
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, async () => {
          for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
            statuses.push((await decide(bridge, runId, id, { decision: 'deny' })).status);
          }
        }),
      );
      const used = process.cpuUsage(cpu);
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      expectAllDenied(await bridge.readEvents(runId), 'client');
      expect((used.user + used.system) / 1000).toBeLessThan(DECIDE_CPU_BOUND_MS);
    },
    STORM_TIMEOUT_MS,
  );

  it(
    'is decided all at once by its timeout while /health keeps answering',
    async () => {
      const { runId } = await startStorm({ timeout_seconds: 3, on_timeout: 'deny' });
      const { result: events, healthStatuses } = await whileProbing(() => bridge.readEvents(runId));
      expectAllDenied(events, 'timeout');
      // Answered, and answered 200, again and again while the storm was decided (how fast: bench/).
      expect(healthStatuses.length).toBeGreaterThan(1);
      expect(healthStatuses.every((status) => status === 200)).toBe(true);
    },
    STORM_TIMEOUT_MS,
  );
});
