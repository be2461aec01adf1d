import { describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { eventually } from '../support/eventually.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import type { TestBridge } from '../support/start-test-bridge.js';
import { useTwoBridgesOnRedis } from '../support/two-bridges-on-redis.js';

/**
 * Redis frozen (SIGSTOP) under two instances (docs/deployment.md): every route answers within its bound —
 * 503 `store_unavailable` with `Retry-After` where it needs Redis — nothing waits for Redis to wake, and
 * nothing asked meanwhile takes effect behind the caller's back once it does.
 */
/** Generous against a busy machine, yet far below what waiting out the freeze would take. */
const BOUND_MS = 10_000;

describe('Redis frozen under two instances', () => {
  const instances = useTwoBridgesOnRedis(
    { RUNBRIDGE_REDIS_COMMAND_TIMEOUT_SECONDS: '0.5', RUNBRIDGE_DEFAULT_ENV: 'probe' },
    {
      environments: [probeEnvironment],
      providers: [scriptedProvider({ asking: [{ toolCalls: [{ name: 'echo', arguments: '{"text":"hi"}' }] }] })],
    },
  );

  /** `path` on `bridge`, failing the test if it takes longer than the bound instead of hanging with Redis. */
  const within = (bridge: TestBridge, path: string, init?: RequestInit) =>
    bridge.fetch(path, { ...init, signal: AbortSignal.timeout(BOUND_MS) });

  it('answers 503 with Retry-After instead of hanging, applies no decision late, and recovers once Redis is back', async () => {
    const { redis, a, b } = instances;
    // Posted to A, which has free slots, the run executes on A. The test asks both instances while
    // Redis is frozen, and sends the decision to B, which has to hand it to A through Redis.
    const runId = await a.startRun({ model: 'scripted:asking', approval: { tools: '*' } });
    const snapshot = await eventually(async () => {
      const seen = (await (await b.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot;
      return seen.status === 'requires_action' && seen;
    }, 'the run to ask for a decision');
    const approvalId = snapshot.pending_approvals[0]!.approval_id;

    redis.freeze();
    for (const bridge of [a, b]) {
      const health = await within(bridge, '/health');
      expect(health.status).toBe(503);
      expect(health.headers.get('retry-after')).toBe('2');
      expect(await health.json()).toMatchObject({ error: { code: 'store_unavailable' } });
      for (const [path, init] of [
        ['/v1/runs', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }],
        ['/v1/runs?limit=5', {}],
      ] as const) {
        const answer = await within(bridge, path, init);
        expect(answer.status, `${init.method ?? 'GET'} ${path}`).toBe(503);
        expect(answer.headers.get('retry-after')).toBeTruthy();
      }
    }
    // B must ask Redis where the run is: the decision is refused, not sent.
    const refused = await within(b, `/v1/runs/${runId}/approvals/${approvalId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ decision: 'deny' }),
    });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toMatch(
      /^(store_unavailable|decision_unconfirmed)$/,
    );

    redis.thaw();
    // Both: B takes the decision, but A, where the run executes, must be back on Redis to receive it.
    await eventually(
      async () => (await a.fetch('/health')).status === 200 && (await b.fetch('/health')).status === 200,
      'both instances to find Redis again',
    );
    // Nothing was decided behind the caller's back: the approval still waits, and the decision sent now wins.
    const pending = (await (await b.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot;
    expect(pending.pending_approvals.map((entry) => entry.approval_id)).toEqual([approvalId]);
    const decided = await b.fetch(`/v1/runs/${runId}/approvals/${approvalId}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    expect((await b.readEvents(runId)).at(-1)?.event).toBe('run.completed');
  });
});
