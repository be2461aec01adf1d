import { z } from 'zod';
import type { TaskSource } from '../../../src/ors/environment.js';
import type { Split } from '../../../src/ors/ors-schemas.js';
import { seededRandom } from '../seeded-random.js';
import { makeValue, WORKSPACE_KEYS } from './workspace-vocabulary.js';

/**
 * The tasks of the `workspace` environment. A task is small (a seed and the fact to hide); the file
 * tree is generated from it when a session starts, so `/tasks` listings stay short.
 */

/** Where the fact is hidden. `archive` files are skipped by a plain `search`; only `deep: true` finds it. */
export const WORKSPACE_LOCATIONS = ['logs', 'config', 'notes', 'data', 'archive'] as const;
/** One of {@link WORKSPACE_LOCATIONS}. */
export type WorkspaceLocation = (typeof WORKSPACE_LOCATIONS)[number];

/** A `task_spec` for `/create`, and what `/tasks` lists. */
export const WorkspaceTaskSchema = z.object({
  id: z.string().min(1).max(200).default('custom'),
  /** Seeds the generated file tree. */
  seed: z.number().int().min(0).max(0xffff_ffff),
  /** The key whose recorded value the task asks for. */
  key: z.string().regex(/^[a-z][a-z0-9_]{1,63}$/, 'use lower-case snake_case, e.g. "cache_ttl"'),
  /** The recorded value, the expected submission. */
  answer: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'use letters, digits, "_" and "-" only'),
  location: z.enum(WORKSPACE_LOCATIONS),
  /** Whether the session offers the task-specific `get_hint` tool. */
  hint: z.boolean().default(false),
});
/** One workspace task, as {@link WorkspaceTaskSchema} parses it. */
export type WorkspaceTask = z.infer<typeof WorkspaceTaskSchema>;

/** The number of tasks in each split; a Map, so that a split named `constructor` is unknown, not `Object`. */
export const WORKSPACE_SPLIT_SIZES: ReadonlyMap<string, number> = new Map([
  ['train', 500],
  ['test', 100],
]);

/** The splits as `/splits` lists them. */
export const WORKSPACE_SPLITS: Split[] = [
  { name: 'train', type: 'train' },
  { name: 'test', type: 'test' },
];

/** Relative frequency of each hiding place. */
const LOCATION_WEIGHTS: ReadonlyArray<readonly [WorkspaceLocation, number]> = [
  ['logs', 30],
  ['config', 20],
  ['notes', 20],
  ['data', 15],
  ['archive', 15],
];

/** The task at `index` of `split`; throws a RangeError for an unknown split or an index out of range. */
export function workspaceTask(split: string, index: number): WorkspaceTask {
  const size = WORKSPACE_SPLIT_SIZES.get(split);
  if (size === undefined) {
    throw new RangeError(
      `workspace has no split "${split}"; use one of: ${[...WORKSPACE_SPLIT_SIZES.keys()].join(', ')}`,
    );
  }
  if (!Number.isInteger(index) || index < 0 || index >= size) {
    throw new RangeError(`workspace split "${split}" has tasks 0 to ${size - 1}; ${index} is out of range`);
  }
  const random = seededRandom(`workspace:${split}:${index}`);
  let roll = random.int(1, 100);
  let location: WorkspaceLocation = 'logs';
  for (const [name, weight] of LOCATION_WEIGHTS) {
    roll -= weight;
    if (roll <= 0) {
      location = name;
      break;
    }
  }
  return {
    id: `${split}-${String(index).padStart(4, '0')}`,
    seed: random.int(0, 0x7fff_ffff),
    key: random.pick(WORKSPACE_KEYS),
    answer: makeValue(random),
    location,
    hint: random.chance(1 / 3),
  };
}

/** The workspace {@link TaskSource}: generated on demand, nothing kept in memory. */
export const workspaceTasks: TaskSource<WorkspaceTask> = {
  count: (split) => WORKSPACE_SPLIT_SIZES.get(split) ?? 0,
  get: workspaceTask,
};
