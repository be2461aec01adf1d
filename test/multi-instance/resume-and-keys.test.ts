import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { runEventsOf } from '../support/run-events-of.js';
import { type Instance, postRun, readEvents, useCluster } from './serve-cluster.js';

/** A seeded generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1_664_525 + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Reads at most `count` events of `runId` from `instance` after `after`, then hangs up. */
async function readSome(instance: Instance, runId: string, after: number, count: number): Promise<RunEvent[]> {
  const controller = new AbortController();
  const response = await fetch(`${instance.url}/v1/runs/${runId}/events`, {
    headers: { 'Last-Event-ID': String(after) },
    signal: controller.signal,
  });
  if (response.status === 204) return [];
  expect(response.status).toBe(200);
  try {
    return await runEventsOf(response.body!, count);
  } finally {
    controller.abort();
  }
}

describe('three instances on one Redis, under many clients', () => {
  const cluster = useCluster(3);

  it('joins a log read in pieces at 1,000 random resume points on random instances into exactly the log, nothing lost or doubled', async () => {
    const next = random(20251124);
    const pick = () => cluster.instances[Math.floor(next() * cluster.instances.length)]!;
    const runs = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        postRun(pick(), { env: index % 2 ? 'arith' : 'workspace', task: { split: 'train', index } }),
      ),
    );
    let resumes = 0;
    // Live: each run followed in pieces of 1–3 events, every piece from a random instance.
    const pieces = await Promise.all(
      runs.map(async ({ runId }) => {
        const log: RunEvent[] = [];
        while (log.at(-1)?.event !== 'run.completed' && log.at(-1)?.event !== 'run.failed') {
          const piece = await readSome(pick(), runId, log.at(-1)?.seq ?? -1, 1 + Math.floor(next() * 3));
          resumes++;
          log.push(...piece);
        }
        return log;
      }),
    );
    const live = resumes;
    // Finished: random cursors on random instances until 1,000 resume points in all.
    const whole = await Promise.all(runs.map(({ runId }) => readEvents(cluster.instances[0]!, runId)));
    for (const [index, log] of pieces.entries()) {
      assertEventOrder(log);
      expect(log).toEqual(whole[index]);
    }
    while (resumes < 1000) {
      const index = Math.floor(next() * runs.length);
      const log = whole[index]!;
      const cursor = Math.floor(next() * log.length) - 1;
      expect(await readEvents(pick(), runs[index]!.runId, cursor)).toEqual(log.slice(cursor + 1));
      resumes++;
    }
    console.info(
      `resume points: ${live} while the runs played, ${resumes - live} after; ${pieces.reduce((sum, log) => sum + log.length, 0)} events over ${runs.length} runs`,
    );
  }, 180_000);

  it('starts one run per Idempotency-Key when the same request races on two instances, and 409s another body', async () => {
    const [a, b, c] = cluster.instances as [Instance, Instance, Instance];
    const keys = Array.from({ length: 30 }, (_, index) => `race-${index}`);
    const answers = await Promise.all(
      keys.map(async (key, index) => {
        const body = { env: 'arith', task: { split: 'train', index } };
        const headers = { 'Idempotency-Key': key };
        const [onA, onB] = await Promise.all([postRun(a, body, headers), postRun(b, body, headers)]);
        const other = await postRun(c, { ...body, max_turns: 3 }, headers);
        return { onA, onB, other };
      }),
    );
    for (const { onA, onB, other } of answers) {
      expect([onA.status, onB.status].sort()).toEqual([200, 202]);
      expect(onA.runId).toBe(onB.runId);
      expect(other.status).toBe(409);
      expect(other.body).toMatchObject({ error: { code: 'idempotency_conflict' } });
    }
    const ids = new Set(answers.map(({ onA }) => onA.runId));
    expect(ids.size).toBe(keys.length);
    const listed = (await (await fetch(`${c.url}/v1/runs?limit=100`)).json()) as { data: Array<{ run_id: string }> };
    expect(listed.data.filter((run) => ids.has(run.run_id))).toHaveLength(keys.length);
  }, 60_000);
});
