import type { KeyClaim } from '../../runs/run-store.js';

type KeyState = { hash: string; runId: string } | { hash: string; creating: Promise<void>; settle: () => void };

/**
 * `Idempotency-Key`s of one process: one run per (owner, key). A key is claimed before its run is
 * created, so a concurrent duplicate waits for that creation instead of starting a second run; a
 * creation that fails frees its key, and so does forgetting the run.
 */
export class IdempotencyKeys {
  /** Keys (`owner\0key`) by body hash: the run they name, or the creation in flight. */
  readonly #keys = new Map<string, KeyState>();
  /** The key of each run that has one, so forgetting the run frees its key without a scan. */
  readonly #byRun = new Map<string, string>();

  claim(owner: string, key: string, hash: string): KeyClaim {
    const name = `${owner}\0${key}`;
    const state = this.#keys.get(name);
    if (!state) {
      let settle!: () => void;
      const creating = new Promise<void>((resolve) => {
        settle = resolve;
      });
      this.#keys.set(name, { hash, creating, settle });
      return { kind: 'claimed' };
    }
    if (state.hash !== hash) return { kind: 'conflict' };
    return 'runId' in state ? { kind: 'run', runId: state.runId } : { kind: 'pending', settled: state.creating };
  }

  /** Binds a claimed key to the run created under it. */
  bind(owner: string, key: string, runId: string): void {
    const name = `${owner}\0${key}`;
    const state = this.#keys.get(name);
    if (!state || 'runId' in state) return;
    this.#keys.set(name, { hash: state.hash, runId });
    this.#byRun.set(runId, name);
    state.settle();
  }

  /** Frees a claimed key whose creation failed. */
  release(owner: string, key: string): void {
    const name = `${owner}\0${key}`;
    const state = this.#keys.get(name);
    if (!state || 'runId' in state) return;
    this.#keys.delete(name);
    state.settle();
  }

  /** Frees the key of a run being forgotten, if it has one. */
  forget(runId: string): void {
    const name = this.#byRun.get(runId);
    if (name === undefined) return;
    this.#byRun.delete(runId);
    this.#keys.delete(name);
  }
}
