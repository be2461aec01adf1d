import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { ConflictError } from '../errors.js';

/**
 * A lock file beside a rollout file (`<out>.lock`, holding the owner's pid), so two batches never
 * append to the same file — which would duplicate (task, sample) pairs. A lock left by a process that
 * no longer exists (killed with SIGKILL) is taken over.
 */
export class RolloutLock {
  readonly #path: string;
  #held = true;

  private constructor(path: string) {
    this.#path = path;
  }

  /**
   * Takes the lock of rollout file `outPath`, or throws a `ConflictError` (code `rollout_locked`)
   * naming the live process that holds it.
   */
  static acquire(outPath: string): RolloutLock {
    const path = `${outPath}.lock`;
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
        return new RolloutLock(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const owner = readOwner(path);
      if (owner === null) continue;
      // A lock naming no pid may be one another process is writing this instant: never take it over.
      if (owner === undefined || isAlive(owner)) {
        throw new ConflictError(
          `Another rollout batch${owner === undefined ? '' : ` (pid ${owner})`} is writing ${outPath}; wait for it to finish or stop it. ` +
            `If no such batch is running, delete ${path}.`,
          'rollout_locked',
        );
      }
      // Its owner is gone (killed before it could clean up): the lock is stale.
      unlinkSync(path);
    }
    throw new ConflictError(`Could not take the lock ${path}: another process keeps recreating it.`, 'rollout_locked');
  }

  /** Releases the lock; idempotent. */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    try {
      unlinkSync(this.#path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** The pid the lock names; undefined when it names none; null when the lock vanished meanwhile. */
function readOwner(path: string): number | undefined | null {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
