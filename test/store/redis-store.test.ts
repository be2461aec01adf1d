import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_OWNER } from '../../src/http/authenticate.js';
import { EventDetailSchema } from '../../src/protocol/event-detail.js';
import { isTerminalEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { RunRequestSchema } from '../../src/protocol/run-request.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { toTrajectoryRecord } from '../../src/rollouts/to-trajectory-record.js';
import { foldEpisode } from '../../src/runs/episode-fold.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { unkeyedHash } from '../support/unkeyed-hash.js';

/** The body hash an `Idempotency-Key` of run `runId` is bound to in Redis (`idem:*` holds `run:<hash>:<id>`). */
async function storedBodyHash(client: Redis, prefix: string, runId: string): Promise<string> {
  const values = await Promise.all((await client.keys(`${prefix}idem:*`)).map((key) => client.get(key)));
  const value = values.find((text) => text?.endsWith(`:${runId}`));
  const hash = /^run:([0-9a-f]+):/.exec(value ?? '')?.[1];
  if (hash === undefined) throw new Error(`no idempotency key names ${runId}: ${JSON.stringify(values)}`);
  return hash;
}

/** Two in-process bridges on one Redis prefix: what one executes, the other reads back from Redis. */
describe('the Redis store', () => {
  let redis: TestRedis;
  let a: TestBridge;
  let b: TestBridge;
  let client: Redis;
  let prefix: string;
  beforeAll(async () => {
    redis = await startTestRedis();
    prefix = redis.prefix();
    const env = {
      // One run at a time for the key: a second one waits in the queue, on every instance.
      RUNBRIDGE_MAX_RUNNING_PER_KEY: '1',
      RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '1',
      RUNBRIDGE_REDIS_URL: redis.url,
      RUNBRIDGE_REDIS_PREFIX: prefix,
      RUNBRIDGE_DEFAULT_ENV: 'probe',
    };
    const options = {
      environments: [probeEnvironment],
      providers: [
        scriptedProvider({
          echoing: [
            { reasoning: 'Echo it.', text: 'Echoing.', toolCalls: [{ name: 'echo', arguments: '{"text":"hello"}' }] },
            { toolCalls: [{ name: 'score', arguments: '{"reward":1,"finished":true}' }] },
          ],
          stuck: [{ hang: true }],
        }),
      ],
    };
    a = await startTestBridge({ ...env, RUNBRIDGE_MAX_CONCURRENT_RUNS: '1' }, options);
    b = await startTestBridge(env, options);
    client = new Redis(redis.url);
  });
  /** The executing instance streams the terminal event from its own log a moment before Redis has it. */
  const finishedInRedis = (runId: string) =>
    vi.waitFor(async () => expect(await client.hget(`${prefix}run:${runId}`, 'finished_at')).toBeTruthy());
  afterAll(async () => {
    client?.disconnect();
    await a?.shutdown();
    await b?.shutdown();
    await redis?.stop();
  });

  it('gives back, from the log read out of Redis on another instance, the record the executing instance folds live', async () => {
    const runId = await a.startRun({ model: 'scripted:echoing', instructions: 'Be brief.', input: 'Go.' });
    await a.readEvents(runId);
    const live = foldEpisode((await a.registry.open(runId, LOCAL_OWNER)).log.entries);
    const mirrored = await b.registry.open(runId, LOCAL_OWNER);
    // What Redis holds, parsed and validated as any reader would.
    const stored = (await client.xrange(`${prefix}run:${runId}:log`, '-', '+')).map(([, fields]) => {
      const values = Object.fromEntries(fields.flatMap((_, i) => (i % 2 ? [] : [[fields[i]!, fields[i + 1]!]])));
      return {
        event: RunEventSchema.parse(JSON.parse(values.e!)),
        detail: values.d === undefined ? undefined : EventDetailSchema.parse(JSON.parse(values.d)),
      };
    });
    expect(foldEpisode(stored)).toEqual(live);
    expect(foldEpisode(mirrored.log.entries)).toEqual(live);
    expect(live.messages.map((message) => message.role)).toEqual([
      'system',
      'user',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
    const [rollout] = planRollouts({ env: 'probe', split: 'train', indices: [0], samples: 1, masterSeed: 0 });
    const context = {
      rolloutId: 'ro_1',
      rollout: rollout!,
      attempt: 1,
      split: 'train',
      spec: null,
      sampling: {},
      rewardReduction: 'last' as const,
      timeoutMs: 60_000,
    };
    expect(toTrajectoryRecord(foldEpisode(stored), context)).toEqual(toTrajectoryRecord(live, context));
  });

  it('keeps the secrets of a queued run in Redis only sealed, and drops them once the run has started', async () => {
    const busy = await a.startRun({ model: 'scripted:stuck' });
    const secret = 'sk-live-very-secret-value';
    const response = await a.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: 'scripted:echoing', secrets: { token: secret } }),
    });
    const { run_id: queued, status } = (await response.json()) as { run_id: string; status: string };
    expect(status).toBe('queued');
    const sealed = await client.get(`${prefix}run:${queued}:secrets`);
    expect(sealed).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    const dump = JSON.stringify(
      await Promise.all((await client.keys(`${prefix}*`)).map(async (key) => [key, await client.dump(key)])),
    );
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(Buffer.from(secret).toString('base64'));
    await a.fetch(`/v1/runs/${busy}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    const log = await b.readEvents(queued);
    expect(log.at(-1)).toMatchObject({ event: 'run.completed' });
    await finishedInRedis(queued);
    expect(await client.exists(`${prefix}run:${queued}:secrets`)).toBe(0);
  });

  it('keeps an Idempotency-Key bound to a hash keyed by the shared secret, which a dump cannot test guessed secrets against', async () => {
    const body = { model: 'scripted:echoing', secrets: { pin: '4821' } };
    const post = (bridge: TestBridge, key: string) =>
      bridge.fetch('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
      });
    // Instances sharing the secret agree: the same key and body on the other one is the same run.
    const first = await post(a, 'pin-run');
    const again = await post(b, 'pin-run');
    expect([first.status, again.status]).toEqual([202, 200]);
    const { run_id: runId } = (await first.json()) as { run_id: string };
    expect(((await again.json()) as { run_id: string }).run_id).toBe(runId);
    const stored = await storedBodyHash(client, prefix, runId);
    // What a dump holds cannot be checked against a guess: no PIN's unkeyed hash of the body matches it.
    const parsed = RunRequestSchema.parse(body);
    for (let pin = 0; pin < 10_000; pin++) {
      const guess = { ...parsed, secrets: { pin: String(pin).padStart(4, '0') } };
      expect(unkeyedHash(guess)).not.toBe(stored);
    }
    // Another instance secret (a bridge on a prefix of its own) binds the same key and body to another hash.
    const otherPrefix = redis.prefix();
    const other = await startTestBridge(
      { RUNBRIDGE_REDIS_URL: redis.url, RUNBRIDGE_REDIS_PREFIX: otherPrefix, RUNBRIDGE_DEFAULT_ENV: 'probe' },
      { environments: [probeEnvironment], providers: [scriptedProvider({ echoing: [{ text: 'Done.' }] })] },
    );
    try {
      const elsewhere = (await (await post(other, 'pin-run')).json()) as { run_id: string };
      const otherHash = await storedBodyHash(client, otherPrefix, elsewhere.run_id);
      expect(otherHash).toMatch(/^[0-9a-f]{64}$/);
      expect(otherHash).not.toBe(stored);
      await other.readEvents(elsewhere.run_id);
    } finally {
      await other.shutdown();
    }
    await a.readEvents(runId);
  });

  it("lets the finished run's keys expire with its retention, and forgets it everywhere on DELETE", async () => {
    const runId = await b.startRun({ model: 'scripted:echoing' });
    await b.readEvents(runId);
    await finishedInRedis(runId);
    const ttl = await client.pttl(`${prefix}run:${runId}`);
    // RUNBRIDGE_RETENTION_SECONDS (3600) plus a margin for the sweep to come first.
    expect(ttl).toBeGreaterThan(3_600_000);
    expect(ttl).toBeLessThanOrEqual(3_660_000);
    expect(await client.pttl(`${prefix}run:${runId}:log`)).toBeGreaterThan(3_600_000);
    expect((await a.fetch(`/v1/runs/${runId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await b.fetch(`/v1/runs/${runId}`)).status).toBe(404);
    expect(await client.exists(`${prefix}run:${runId}`, `${prefix}run:${runId}:log`)).toBe(0);
  });

  it('forgets a run deleted the moment it ends on the instance executing it, before its log has reached Redis', async () => {
    const runId = await a.startRun({ model: 'scripted:echoing' });
    const run = await a.registry.open(runId, LOCAL_OWNER);
    // The terminal event is in the log here; the writer has not stored it yet, so Redis still says running.
    const deleted = new Promise<void>((resolve, reject) => {
      run.log.onAppend(({ event }) => {
        if (isTerminalEvent(event)) a.registry.delete(runId, LOCAL_OWNER).then(resolve, reject);
      });
    });
    await deleted;
    expect(await client.exists(`${prefix}run:${runId}`, `${prefix}run:${runId}:log`)).toBe(0);
    expect((await b.fetch(`/v1/runs/${runId}`)).status).toBe(404);
    const page = (await (await b.fetch('/v1/runs?limit=100')).json()) as { data: Array<{ run_id: string }> };
    expect(page.data.map((listed) => listed.run_id)).not.toContain(runId);
  });
});
