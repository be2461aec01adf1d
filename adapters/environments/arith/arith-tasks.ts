import { z } from 'zod';
import type { TaskSource } from '../../../src/ors/environment.js';
import type { Split } from '../../../src/ors/ors-schemas.js';
import { seededRandom } from '../seeded-random.js';
import { ARITH_TEMPLATE_NAMES, generateProblem } from './arith-templates.js';

/**
 * The tasks of the `arith` environment: word problems generated from (split, index) alone, so every
 * server hands out the same task for the same address without storing anything.
 */

/** A `task_spec` for `/create`, and what `/tasks` lists. `template` is absent for hand-written tasks. */
export const ArithTaskSchema = z.object({
  id: z.string().min(1).max(200).default('custom'),
  template: z.enum(ARITH_TEMPLATE_NAMES as [string, ...string[]]).optional(),
  question: z.string().min(1).max(4000),
  answer: z.number().refine(Number.isFinite, 'the answer must be a finite number'),
});
/** One arith task, as {@link ArithTaskSchema} parses it. */
export type ArithTask = z.infer<typeof ArithTaskSchema>;

/** The number of tasks in each split; a Map, so that a split named `constructor` is unknown, not `Object`. */
export const ARITH_SPLIT_SIZES: ReadonlyMap<string, number> = new Map([
  ['train', 1000],
  ['test', 200],
]);

/** The splits as `/splits` lists them. */
export const ARITH_SPLITS: Split[] = [
  { name: 'train', type: 'train' },
  { name: 'test', type: 'test' },
];

/** The task at `index` of `split`; throws a RangeError for an unknown split or an index out of range. */
export function arithTask(split: string, index: number): ArithTask {
  const size = ARITH_SPLIT_SIZES.get(split);
  if (size === undefined)
    throw new RangeError(`arith has no split "${split}"; use one of: ${[...ARITH_SPLIT_SIZES.keys()].join(', ')}`);
  if (!Number.isInteger(index) || index < 0 || index >= size) {
    throw new RangeError(`arith split "${split}" has tasks 0 to ${size - 1}; ${index} is out of range`);
  }
  // The split name is part of the seed, so train and test draw independent problems.
  const problem = generateProblem(index, seededRandom(`arith:${split}:${index}`));
  return { id: `${split}-${String(index).padStart(4, '0')}`, ...problem };
}

/** The arith {@link TaskSource}: generated on demand, nothing kept in memory. */
export const arithTasks: TaskSource<ArithTask> = {
  count: (split) => ARITH_SPLIT_SIZES.get(split) ?? 0,
  get: arithTask,
};
