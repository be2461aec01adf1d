import { createHash } from 'node:crypto';
import { ConflictError } from '../errors.js';
import type { RunRequest } from '../protocol/run-request.js';
import type { Run } from './run.js';

/**
 * `Idempotency-Key`s of `POST /v1/runs`: one run per (owner, key). A key is taken before the
 * creation's first await, so a concurrent duplicate waits for that creation instead of starting a
 * second run; a creation that fails frees its key; forgetting the run frees it too.
 */
export class IdempotencyKeys {
  /** Keys (`owner\0key`) by the body hash and the creation they started. */
  readonly #keys = new Map<string, { hash: string; run: Promise<Run> }>();
  /** The key of each run that has one, so forgetting the run frees its key without a scan. */
  readonly #byRun = new Map<string, string>();

  /**
   * The run `owner`'s `key` stands for: the one `create` makes (`created: true`) on the key's first
   * use, or the existing one for the same body (`created: false`) — while it is still being
   * created, once it is, or with the error its creation failed with. Another body is a 409.
   */
  async once(
    owner: string,
    key: string,
    request: RunRequest,
    create: () => Promise<Run>,
  ): Promise<{ run: Run; created: boolean }> {
    const name = `${owner}\0${key}`;
    const hash = hashRequest(request);
    const seen = this.#keys.get(name);
    if (seen) {
      if (seen.hash !== hash) throw idempotencyConflict();
      return { run: await seen.run, created: false };
    }
    const creating = create();
    this.#keys.set(name, { hash, run: creating });
    try {
      const run = await creating;
      this.#byRun.set(run.id, name);
      return { run, created: true };
    } catch (error) {
      // No run holds the key, so a retry with it must be able to create one.
      this.#keys.delete(name);
      throw error;
    }
  }

  /** Frees the key of a run being forgotten, if it has one. */
  release(runId: string): void {
    const name = this.#byRun.get(runId);
    if (name === undefined) return;
    this.#byRun.delete(runId);
    this.#keys.delete(name);
  }
}

/** The 409 for a key already used with another body. */
export function idempotencyConflict(): ConflictError {
  return new ConflictError(
    'This Idempotency-Key was already used with a different body; use a new key for a new run.',
    'idempotency_conflict',
  );
}

/** A stable hash of a request body (key order does not matter), secrets included but never stored. */
export function hashRequest(request: RunRequest): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
