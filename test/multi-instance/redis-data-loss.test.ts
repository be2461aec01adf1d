import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { chatProvider, eventsMatching, ofType } from '../hitl/hitl-support.js';
import { eventually } from '../support/eventually.js';
import type { TestBridge } from '../support/start-test-bridge.js';
import { useTwoBridgesOnRedis } from '../support/two-bridges-on-redis.js';

/**
 * Redis restarted without its data under two instances (docs/deployment.md): the shared secret is put back
 * by the instances that hold it, so stream tokens keep working across them; a run whose record vanished is
 * written back, with its whole log, by the instance executing it, and goes on as if nothing happened —
 * every instance serves it again and takes messages for it; an instance whose secret is no longer the
 * shared one says so.
 */
describe('Redis restarted without its data', () => {
  const instances = useTwoBridgesOnRedis(
    // Renewed three times a second: a lost record is noticed within a fraction of a second.
    { RUNBRIDGE_LEASE_SECONDS: '0.3' },
    { providers: [chatProvider] },
    { RUNBRIDGE_MAX_CONCURRENT_RUNS: '1' },
  );

  const json = { 'Content-Type': 'application/json' };
  const message = (bridge: TestBridge, runId: string) =>
    bridge.fetch(`/v1/runs/${runId}/messages`, { method: 'POST', headers: json, body: '{"content":"still there?"}' });

  it('writes back the runs it executes, which go on and take messages from every instance, and keeps tokens working', async () => {
    const { redis, a, b } = instances;
    const runId = await a.startRun({ model: 'chat', await_input: true });
    await eventsMatching(a, runId, ofType('run.awaiting_input'));
    // A subscriber on the instance executing the run, waiting with it.
    const watching = fetch(`${a.url}/v1/runs/${runId}/events?after=0`).then((response) => response.text());

    await redis.wipe();
    await eventually(async () => {
      const answers = await Promise.all([a, b].map((bridge) => bridge.fetch('/health')));
      return answers.every((answer) => answer.status === 200);
    }, 'both instances back');

    // Written back at A's next lease renewal: B serves it again, and a message sent there reaches it.
    await eventually(async () => (await message(b, runId)).status === 202, 'the run written back, taking messages');
    await eventsMatching(a, runId, ofType('message.received'));
    const cancelled = await b.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST', headers: json, body: '{}' });
    expect(((await cancelled.json()) as RunSnapshot).status).toBe('cancelled');
    const seen = await watching;
    expect(seen).toContain('"event":"message.received"');
    expect(seen).toContain('"event":"run.cancelled"');
    expect(seen).not.toContain('"code":"store_lost"');
    // The log B reads out of Redis is the whole log, as A played it.
    const whole = await b.readEvents(runId);
    assertEventOrder(whole);
    expect(whole).toEqual(await a.readEvents(runId));

    // The secret came back with the instances: a token made on A opens a stream on B.
    const fresh = await a.startRun({ model: 'chat' });
    const { token } = (await (
      await a.fetch(`/v1/runs/${fresh}/stream-token`, { method: 'POST', headers: json })
    ).json()) as {
      token: string;
    };
    const streamed = await fetch(`${b.url}/v1/runs/${fresh}/events?token=${encodeURIComponent(token)}`);
    expect(streamed.status, await streamed.clone().text()).toBe(200);
    expect(await streamed.text()).toContain('"event":"run.completed"');
    expect(((await (await b.fetch(`/v1/runs/${fresh}`)).json()) as RunSnapshot).status).toBe('completed');
  });

  it("says so, and fails its health, when the shared secret is no longer this instance's", async () => {
    const { redis, prefix, b } = instances;
    const client = new Redis(redis.url);
    try {
      // Another instance that started while Redis was empty made a secret of its own…
      await client.set(`${prefix}secret`, Buffer.alloc(32, 7).toString('base64'));
      // …and B's connection drops and comes back, as after a restart.
      await client.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
      let answer: { error?: { code: string; message: string } } = {};
      await eventually(async () => {
        answer = (await (await b.fetch('/health')).json()) as typeof answer;
        return /secret/.test(answer.error?.message ?? '');
      }, 'B to notice');
      expect(answer.error).toMatchObject({ code: 'store_unavailable' });
      expect(answer.error?.message).toMatch(/Restart this instance, or set RUNBRIDGE_SECRET/);
    } finally {
      client.disconnect();
    }
  });
});
