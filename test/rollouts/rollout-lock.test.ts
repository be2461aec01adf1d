import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RolloutLock } from '../../src/rollouts/rollout-lock.js';

describe('RolloutLock', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rollout-lock-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('lets one batch at a time write a file, and takes over a lock whose process is gone', () => {
    const out = join(dir, 'out.jsonl');
    const lock = RolloutLock.acquire(out);
    expect(() => RolloutLock.acquire(out)).toThrow(/Another rollout batch \(pid \d+\) is writing/);
    lock.release();
    lock.release();
    RolloutLock.acquire(out).release();

    // A pid far above any real one stands for a batch killed with SIGKILL.
    writeFileSync(`${out}.lock`, '2147483646\n');
    const taken = RolloutLock.acquire(out);
    expect(readFileSync(`${out}.lock`, 'utf8').trim()).toBe(String(process.pid));
    taken.release();
  });
});
