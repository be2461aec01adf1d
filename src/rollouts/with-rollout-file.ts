import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { RolloutLock } from './rollout-lock.js';
import { manifestPathFor, type RolloutManifest, writeManifest } from './rollout-manifest.js';
import { RolloutStore } from './rollout-store.js';

/** How a batch ended. */
export interface RolloutResult {
  /** `interrupted` when `signal` aborted; pairs without a record then run on the next call. */
  status: 'finished' | 'interrupted';
  /** The JSONL file, as given. */
  out: string;
  /** Where the manifest was written. */
  manifestPath: string;
  /** The manifest as last written. */
  manifest: RolloutManifest;
}

/**
 * The frame of one batch writing `out`, whether its episodes play in this process or on a bridge: the
 * folder made, the file's lock held and its records open while `play` runs; then the closing manifest,
 * `interrupted` when `signal` aborted and `finished` otherwise, built by what `play` returns; then the
 * records closed and the lock let go, whatever happened.
 */
export async function withRolloutFile(
  out: string,
  signal: AbortSignal | undefined,
  play: (store: RolloutStore) => Promise<(status: RolloutManifest['status']) => RolloutManifest>,
): Promise<RolloutResult> {
  mkdirSync(dirname(out), { recursive: true });
  const lock = RolloutLock.acquire(out);
  try {
    const store = await RolloutStore.open(out);
    try {
      const manifestOf = await play(store);
      const status = signal?.aborted ? 'interrupted' : 'finished';
      const manifest = manifestOf(status);
      const manifestPath = manifestPathFor(out);
      writeManifest(manifestPath, manifest);
      return { status, out, manifestPath, manifest };
    } finally {
      store.close();
    }
  } finally {
    lock.release();
  }
}
