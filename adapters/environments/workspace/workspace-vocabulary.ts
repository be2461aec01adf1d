import type { SeededRandom } from '../seeded-random.js';

/**
 * Words the workspace generator builds keys, values and filler text from. Keys are snake_case with
 * underscores only, so a key never appears inside another key at a word boundary (`cache_ttl` vs
 * `cache_ttl_previous` differ at `\b`), which is what lets a reader match a key exactly.
 */

const KEY_PREFIXES = [
  'cache',
  'queue',
  'worker',
  'shard',
  'replica',
  'retry',
  'batch',
  'session',
  'upload',
  'index',
  'backup',
  'metrics',
  'billing',
  'search',
  'auth',
  'ingest',
  'export',
  'mailer',
  'gateway',
  'ledger',
] as const;
const KEY_SUFFIXES = [
  'ttl',
  'limit',
  'size',
  'count',
  'timeout',
  'version',
  'region',
  'quota',
  'interval',
  'threshold',
] as const;

/** Every key a task can ask for, 200 in all. */
export const WORKSPACE_KEYS: readonly string[] = KEY_PREFIXES.flatMap((prefix) =>
  KEY_SUFFIXES.map((suffix) => `${prefix}_${suffix}`),
);

const VALUE_WORDS = [
  'amber',
  'cobalt',
  'delta',
  'ember',
  'fjord',
  'garnet',
  'harbor',
  'indigo',
  'juniper',
  'kestrel',
  'lumen',
  'marlin',
] as const;

/** Names of services, sources and API paths in filler lines. */
export const FILLER_WORDS = [
  'orders',
  'users',
  'invoices',
  'search',
  'reports',
  'uploads',
  'billing',
  'inventory',
  'alerts',
  'sessions',
] as const;

/** A value as recorded in the files: a code such as `cobalt-4821` or a plain number; it always ends in a digit. */
export function makeValue(random: SeededRandom): string {
  return random.chance(0.5) ? `${random.pick(VALUE_WORDS)}-${random.int(1000, 9999)}` : String(random.int(2, 99_999));
}

/** Sentences for notes files; none of them mentions a key, so they never match a key search. */
export const NOTE_SENTENCES = [
  'Agreed to move the weekly sync to Thursdays.',
  'The dashboard for the orders service still shows stale numbers after a deploy.',
  'Follow up with the platform team about the staging certificates.',
  'Nobody owns the nightly export job yet; raise it at the next planning meeting.',
  'Latency on the search endpoints doubled during the incident on the 3rd.',
  'Rotate the shared credentials before the audit.',
  'The migration script needs a dry run against a copy of production.',
  'Remember that archived logs are compressed and slow to search.',
  'Budget review moved to next month.',
  'Write a runbook for restarting the ingest workers.',
  'Clean up feature flags that have been fully rolled out.',
  'Check whether the billing retries are idempotent.',
] as const;

/** Titles of notes files (path stem → heading). */
export const NOTE_FILES: ReadonlyArray<readonly [string, string]> = [
  ['notes/meeting-2024-03-04.md', 'Meeting notes, 4 March'],
  ['notes/meeting-2024-03-11.md', 'Meeting notes, 11 March'],
  ['notes/todo.md', 'To do'],
  ['notes/release-plan.md', 'Release plan'],
  ['notes/oncall-handover.md', 'On-call handover'],
  ['notes/ideas.md', 'Ideas'],
];

/** Config files in INI form. */
export const INI_FILES = ['config/app.ini', 'config/database.ini', 'config/cache.ini', 'config/limits.ini'] as const;

/** Data exports holding metrics (no keys). */
export const METRIC_FILES = [
  'data/metrics-week-09.csv',
  'data/metrics-week-10.csv',
  'data/usage-2024-02.csv',
  'data/errors-2024-02.csv',
] as const;
