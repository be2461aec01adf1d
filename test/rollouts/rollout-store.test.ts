import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunbridgeError } from '../../src/errors.js';
import { RolloutStore } from '../../src/rollouts/rollout-store.js';
import { TrajectoryRecordSchema } from '../../src/rollouts/trajectory-schema.js';
import { sampleRecord } from './sample-record.js';

const lines = (path: string) => readFileSync(path, 'utf8').split('\n');

describe('RolloutStore', () => {
  let dir: string;
  let path: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollout-store-'));
    path = join(dir, 'nested', 'out.jsonl');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('creates the file and its folder, and appends one whole JSON line per record', async () => {
    const store = await RolloutStore.open(path);
    store.append(sampleRecord(0, 0));
    store.append(sampleRecord(0, 1, { status: 'failed', stop_reason: 'error', error: { code: 'x', message: 'y' } }));
    store.close();
    const written = lines(path);
    expect(written.at(-1)).toBe('');
    expect(written.slice(0, -1).map((line) => TrajectoryRecordSchema.parse(JSON.parse(line)).rollout_id)).toEqual([
      'ro_0_0',
      'ro_0_1',
    ]);
  });

  it('knows on reopening which (task, sample) pairs the file holds and how each ended', async () => {
    const first = await RolloutStore.open(path);
    first.append(sampleRecord(3, 0));
    first.append(
      sampleRecord(3, 1, {
        status: 'failed',
        stop_reason: 'timeout',
        error: { code: 'rollout_timeout', message: 'slow' },
      }),
    );
    first.close();
    const store = await RolloutStore.open(path);
    expect(store.size).toBe(2);
    expect(store.outcome('arith/train/3#0')?.status).toBe('completed');
    expect(store.outcome('arith/train/3#1')).toMatchObject({ status: 'failed', stopReason: 'timeout' });
    expect(store.outcome('arith/train/4#0')).toBeUndefined();
    expect(store.recovery).toEqual({ tornBytes: 0, droppedFailed: 0 });
    store.close();
  });

  it('cuts off a torn last line left by a crash and appends after the last whole line', async () => {
    const first = await RolloutStore.open(path);
    first.append(sampleRecord(0, 0));
    first.close();
    const torn = JSON.stringify(sampleRecord(0, 1)).slice(0, 57);
    appendFileSync(path, torn);

    const store = await RolloutStore.open(path);
    expect(store.recovery.tornBytes).toBe(Buffer.byteLength(torn));
    expect(store.size).toBe(1);
    store.append(sampleRecord(0, 1));
    store.close();
    const written = lines(path);
    expect(written).toHaveLength(3);
    expect(written.slice(0, 2).map((line) => JSON.parse(line).sample_index)).toEqual([0, 1]);
  });

  it('refuses a complete line that is not a record, naming the line, and leaves the file alone', async () => {
    const flat = join(dir, 'flat.jsonl');
    writeFileSync(
      flat,
      `${JSON.stringify(sampleRecord(0, 0))}\n{"not": "a record"}\n${JSON.stringify(sampleRecord(1, 0))}\n`,
    );
    const before = readFileSync(flat, 'utf8');
    const error = await RolloutStore.open(flat).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RunbridgeError);
    expect((error as RunbridgeError).code).toBe('rollout_file_invalid');
    expect((error as Error).message).toMatch(
      /^Line 2 of .*flat\.jsonl cannot be resumed from: it is not a trajectory record/,
    );
    await expect(RolloutStore.open(flat)).rejects.toThrow(/Line 2/);
    expect(readFileSync(flat, 'utf8')).toBe(before);
  });

  it('drops the failed records it was opened with, keeping the others in order, so they can run again', async () => {
    const first = await RolloutStore.open(path);
    const failure = {
      status: 'failed' as const,
      stop_reason: 'error' as const,
      error: { code: 'model_unavailable', message: 'down' },
    };
    first.append(sampleRecord(0, 0));
    first.append(sampleRecord(0, 1, failure));
    first.append(sampleRecord(1, 0));
    first.append(sampleRecord(1, 1, failure));
    first.close();

    const store = await RolloutStore.open(path);
    await store.dropFailed();
    expect(store.recovery.droppedFailed).toBe(2);
    expect(store.outcome('arith/train/0#1')).toBeUndefined();
    store.append(sampleRecord(0, 1));
    store.close();
    expect(
      lines(path)
        .slice(0, -1)
        .map((line) => JSON.parse(line).rollout_id),
    ).toEqual(['ro_0_0', 'ro_1_0', 'ro_0_1']);
  });
});
