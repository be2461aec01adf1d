import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { type RolloutConfig, type RolloutManifest, RolloutManifestSchema } from './rollout-manifest-schema.js';
import type { RolloutStats } from './rollout-stats.js';

/**
 * The manifest beside a rollout file, read and written: rewritten (atomically) as the batch goes, so
 * after a crash it still tells what the batch was and roughly where it stood.
 */

export {
  ROLLOUT_MANIFEST_VERSION,
  type RolloutConfig,
  RolloutConfigSchema,
  type RolloutManifest,
  RolloutManifestSchema,
} from './rollout-manifest-schema.js';

// The manifest's statistics are what `summarizeOutcomes` makes of the records, or this does not compile.
RolloutManifestSchema.shape.results satisfies z.ZodType<RolloutStats>;

/** The settings that shape an episode: a file's records must all agree on them. */
const EPISODE_SETTINGS = [
  'env',
  'split',
  'model',
  'sampling',
  'seed',
  'max_turns',
  'instructions',
  'reward_reduction',
  'policy_version',
] as const;

/** Where the manifest of rollout file `out` lives: `x.jsonl` → `x.manifest.json`, anything else gets `.manifest.json` appended. */
export function manifestPathFor(out: string): string {
  return out.endsWith('.jsonl') ? `${out.slice(0, -'.jsonl'.length)}.manifest.json` : `${out}.manifest.json`;
}

/** The manifest at `path`; undefined when there is none or it is unreadable (it is rebuilt from the records anyway). */
export function readManifest(path: string): RolloutManifest | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = RolloutManifestSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `manifest` to `path` atomically (a sibling file renamed over it), so a reader never sees half of one. */
export function writeManifest(path: string, manifest: RolloutManifest): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temporary, path);
}

/**
 * The episode-shaping settings in which `next` differs from `previous`, one sentence each; empty when
 * records made under `previous` may share a file with records made under `next`. Key order and
 * `undefined` entries do not count as differences.
 */
export function configMismatches(previous: RolloutConfig, next: RolloutConfig): string[] {
  const json = (value: unknown): string => JSON.stringify(value) ?? 'null';
  return EPISODE_SETTINGS.filter(
    (key) => !isDeepStrictEqual(JSON.parse(json(previous[key])), JSON.parse(json(next[key]))),
  ).map((key) => `${key} was ${json(previous[key])}, now ${json(next[key])}`);
}
