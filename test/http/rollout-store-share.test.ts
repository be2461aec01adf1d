import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RolloutSnapshotSchema } from '../../src/rollouts/rollout-snapshot.js';
import { eventually } from '../support/eventually.js';
import { postRollout, readRecords, startRollout } from '../support/rollout-client.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const KEYS = ['key-one-0123456789abcdef', 'key-two-0123456789abcdef'];
const SHARE = 4 * 1024 * 1024;

/**
 * A batch's records count against its key's share of the stored bytes, with its runs (docs/security.md,
 * "Caps"): a batch whose records would pass it is stopped with `error.code` `key_store_full`, its records
 * so far kept, and the other key's runs go on.
 */
describe("batch records and the key's share of the stored bytes", () => {
  let bridge: TestBridge;
  const as = (key: string) => ({ Authorization: `Bearer ${key}` });

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: KEYS.join(','), RUNBRIDGE_MAX_STORED_BYTES: String(2 * SHARE) },
      { apiKey: KEYS[0] },
    );
  });
  afterAll(() => bridge?.shutdown());

  it('stops a batch whose records pass the share, and keeps what it recorded', async () => {
    // 12 pairs of 256 KiB instructions: their runs take 3 MiB of the 4 MiB share, their records as much again.
    const id = await startRollout(bridge.fetch, {
      env: 'arith',
      tasks: '0:12',
      samples: 1,
      model: 'offline',
      instructions: `Add. ${'x'.repeat(256 * 1024)}`,
    });
    const records = await readRecords(bridge.fetch, id);
    const snapshot = await eventually(async () => {
      const answer = RolloutSnapshotSchema.parse(await (await bridge.fetch(`/v1/rollouts/${id}`)).json());
      return answer.running === 0 && answer;
    }, 'the batch stopped');
    expect(snapshot).toMatchObject({ status: 'cancelled', error: { code: 'key_store_full' } });
    expect(snapshot.error?.message).toMatch(/RUNBRIDGE_MAX_STORED_BYTES_PER_KEY/);
    expect(records.length).toBe(snapshot.completed + snapshot.failed);
    expect(records.length).toBeLessThan(12);
    expect(JSON.stringify(records).length).toBeLessThan(SHARE);

    const other = await fetch(`${bridge.url}/v1/runs`, {
      method: 'POST',
      headers: { ...as(KEYS[1]!), 'Content-Type': 'application/json' },
      body: JSON.stringify({ env: 'arith' }),
    });
    expect(other.status).toBe(202);
  });
});

describe("a batch whose own record passes the key's share", () => {
  let bridge: TestBridge;

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: KEYS.join(','), RUNBRIDGE_MAX_STORED_BYTES: String(128 * 1024) },
      { apiKey: KEYS[0] },
    );
  });
  afterAll(() => bridge?.shutdown());

  it('is refused with 429 key_store_full before anything is stored', async () => {
    const instructions = `Add. ${'x'.repeat(80 * 1024)}`;
    const { status, answer } = await postRollout(bridge.fetch, {
      env: 'arith',
      tasks: '0',
      samples: 1,
      model: 'offline',
      instructions,
    });
    expect(status).toBe(429);
    expect(answer).toMatchObject({ error: { code: 'key_store_full' } });
    const listed = (await (await bridge.fetch('/v1/rollouts')).json()) as { data: unknown[] };
    expect(listed.data).toEqual([]);
  });
});
