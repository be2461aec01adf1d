import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { manifestPathFor } from '../../src/rollouts/rollout-manifest.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { eventually } from '../support/eventually.js';
import { spawnRunbridge } from '../support/spawn-runbridge.js';
import { keysOf, played, readManifestFile, readRecords, useRolloutRig } from './rollout-rig.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `runbridge rollout …` as a child process (from the sources), with the offline model (and its real token delays). */
function spawnRollout(
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; exited: Promise<{ code: number | null; output: string }> } {
  const child = spawnRunbridge(['rollout', '--model', 'offline', ...args], {
    cwd: ROOT,
    env: { ...process.env, ORS_URL: '', RUNBRIDGE_MODEL: 'offline', ...env },
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, output })),
  );
  return { child, exited };
}

/** Complete lines in `path` so far (0 while it does not exist). */
function completeLines(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, 'utf8').split('\n').length - 1;
}

/** Resolves once `path` holds `count` complete records; a child that exited first fails the wait, saying so. */
function recordsWritten(path: string, count: number, child: ChildProcess): Promise<true> {
  // A minute: on a busy machine the command's worker threads take a while to load the sources.
  return eventually(
    () => {
      if (completeLines(path) >= count) return true;
      if (child.exitCode !== null) throw new Error(`the rollout process exited (${child.exitCode})`);
      return false;
    },
    `${count} records written`,
    { timeoutMs: 60_000 },
  );
}

describe('runbridge rollout as a process', () => {
  const rig = useRolloutRig();

  it('killed with SIGKILL midway and run again, leaves every (task, sample) exactly once', async () => {
    const out = rig.path('killed.jsonl');
    const args = [
      '--env',
      'arith',
      '--split',
      'train',
      '--tasks',
      '0:20',
      '--samples',
      '2',
      '--concurrency',
      '8',
      // One thread: what a kill leaves is the parent's file; the workers' own test is the last below.
      '--workers',
      '1',
      '--out',
      out,
    ];
    const first = spawnRollout(args);
    await recordsWritten(out, 5, first.child);
    first.child.kill('SIGKILL');
    await first.exited;
    const before = completeLines(out);
    expect(before, 'the batch must still have been running when it was killed').toBeLessThan(40);

    const second = await spawnRollout(args).exited;
    expect(second.code, second.output).toBe(0);
    const records = readRecords(out);
    const expected = planRollouts({
      env: 'arith',
      split: 'train',
      indices: [...Array(20).keys()],
      samples: 2,
      masterSeed: 0,
    }).map((rollout) => rollout.key);
    expect(keysOf(records).sort()).toEqual([...expected].sort());
    const manifest = readManifestFile(manifestPathFor(out));
    expect(manifest).toMatchObject({
      status: 'finished',
      progress: { planned: 40, completed: 40, remaining: 0, written: 40 - manifest.progress.skipped },
    });
    expect(manifest.progress.skipped).toBeGreaterThanOrEqual(before);
    expect(existsSync(`${out}.lock`)).toBe(false);
  }, 120_000);

  it('on SIGTERM cancels its episodes, deletes every ORS session, writes no half line and exits 143', async () => {
    const out = rig.path('terminated.jsonl');
    const { child, exited } = spawnRollout(['--tasks', '0:40', '--concurrency', '8', '--out', out], {
      ORS_URL: rig.url,
    });
    await recordsWritten(out, 2, child);
    // The sessions are on the test's own ORS server, so it can see them open and then deleted.
    expect(rig.server.activeSessionIds().length).toBeGreaterThan(0);
    child.kill('SIGTERM');
    const { code, output } = await exited;

    expect(code, output).toBe(143);
    expect(rig.server.activeSessionIds()).toEqual([]);
    const records = readRecords(out);
    const manifest = readManifestFile(manifestPathFor(out));
    expect(manifest.status).toBe('interrupted');
    expect(manifest.progress).toMatchObject({ planned: 40, completed: records.length, remaining: 40 - records.length });
    expect(manifest.progress.cancelled).toBeGreaterThan(0);
    expect(output).toContain('SIGTERM: cancelling the episodes in flight');
  }, 120_000);

  it('with --workers 2, writes the records --workers 1 writes, and resumes a batch interrupted midway with --workers 1', async () => {
    const batch = ['--env', 'arith', '--tasks', '0:10', '--samples', '2', '--concurrency', '8'];
    const single = rig.path('single.jsonl');
    const one = await spawnRollout([...batch, '--workers', '1', '--out', single]).exited;
    expect(one.code, one.output).toBe(0);

    const threads = rig.path('threads.jsonl');
    const two = await spawnRollout([...batch, '--workers', '2', '--out', threads]).exited;
    expect(two.code, two.output).toBe(0);
    expect(readManifestFile(manifestPathFor(threads)).config.workers).toBe(2);
    expect(played(readRecords(threads))).toEqual(played(readRecords(single)));

    const resumed = rig.path('resumed.jsonl');
    const first = spawnRollout([...batch, '--workers', '2', '--out', resumed]);
    await recordsWritten(resumed, 4, first.child);
    first.child.kill('SIGTERM');
    const stopped = await first.exited;
    expect(stopped.code, stopped.output).toBe(143);
    expect(completeLines(resumed)).toBeLessThan(20);
    const rest = await spawnRollout([...batch, '--workers', '1', '--out', resumed]).exited;
    expect(rest.code, rest.output).toBe(0);
    expect(played(readRecords(resumed))).toEqual(played(readRecords(single)));
    // Four commands, two of them starting worker threads that load the sources through tsx.
  }, 180_000);
});
