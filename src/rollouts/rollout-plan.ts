import { createHash } from 'node:crypto';
import { BadRequestError } from '../errors.js';

/**
 * What a rollout batch plays: tasks × samples, each (task, sample) with its own seed derived from the
 * master seed. Pure functions, so the same inputs plan the same batch on every machine.
 */

/** One range of a task selection: `start` inclusive, `stop` exclusive; no `stop` means "to the end of the split". */
export interface TaskRange {
  start: number;
  stop?: number;
}

/** The most tasks a selection may pick, and why (for the refusal's message). */
export interface TaskLimit {
  tasks: number;
  why: string;
}

const NO_LIMIT: TaskLimit = { tasks: Number.POSITIVE_INFINITY, why: '' };

const RANGE = /^(\d*):(\d*)$/;
const INDEX = /^\d+$/;

/**
 * Parses a task selection: `0:200` (indices 0 to 199), `7` (just 7), `:100`, `100:` (to the end of
 * the split), or several joined by commas (`0:10,25,40:50`). Throws a `BadRequestError` naming the
 * bad piece for anything else, including negative numbers and empty ranges such as `5:5`, and
 * `batch_too_large` for more pieces than `limit` has tasks, before reading any (each piece names a task at
 * least, and a body of a mebibyte holds a hundred thousand of them).
 */
export function parseTaskSelection(text: string, limit: TaskLimit = NO_LIMIT): TaskRange[] {
  let pieceCount = 1;
  for (let at = text.indexOf(','); at >= 0; at = text.indexOf(',', at + 1)) {
    if (++pieceCount > limit.tasks) throw tooManyTasks(`The task selection has more than ${limit.tasks} pieces`, limit);
  }
  const pieces = text.split(',').map((piece) => piece.trim());
  return pieces.map((piece): TaskRange => {
    if (INDEX.test(piece)) return { start: Number(piece), stop: Number(piece) + 1 };
    const match = RANGE.exec(piece);
    if (match === null) {
      throw new BadRequestError(
        `The task selection "${text.length > 200 ? `${text.slice(0, 200)}…` : text}" has a bad piece "${piece}": use START:STOP (stop exclusive), START:, :STOP or one index, joined by commas, e.g. "0:200" or "0:10,25".`,
      );
    }
    const start = match[1] === '' ? 0 : Number(match[1]);
    if (match[2] === '') return { start };
    const stop = Number(match[2]);
    if (stop <= start)
      throw new BadRequestError(
        `The task range "${piece}" is empty: its stop (${stop}) must be above its start (${start}).`,
      );
    return { start, stop };
  });
}

/**
 * The task indices `selection` picks from a split of `count` tasks, ascending and without repeats.
 * Throws a `BadRequestError` when a range reaches past the split or an index list holds a bad entry,
 * and `batch_too_large` when it picks more than `limit` — counted over its ranges merged, before
 * any index is listed, so neither a range of a billion tasks nor a thousand repeats of one cost more
 * than the ranges themselves.
 */
export function resolveTaskIndices(
  selection: readonly TaskRange[] | readonly number[],
  count: number,
  limit: TaskLimit = NO_LIMIT,
): number[] {
  const ranges: Array<{ start: number; stop: number }> = [];
  for (const entry of selection) {
    const range = typeof entry === 'number' ? { start: entry, stop: entry + 1 } : entry;
    const stop = range.stop ?? count;
    if (
      !Number.isSafeInteger(range.start) ||
      range.start < 0 ||
      !Number.isSafeInteger(stop) ||
      stop > count ||
      range.start >= stop
    ) {
      throw new BadRequestError(
        `Task ${describeRange(range)} is out of range: the split has ${count} tasks (indices 0 to ${count - 1}).`,
        { code: 'invalid_task' },
      );
    }
    ranges.push({ start: range.start, stop });
  }
  ranges.sort((a, b) => a.start - b.start);
  const merged: Array<{ start: number; stop: number }> = [];
  let picked = 0;
  for (const range of ranges) {
    const last = merged.at(-1);
    if (last !== undefined && range.start <= last.stop) {
      picked += Math.max(0, range.stop - last.stop);
      last.stop = Math.max(last.stop, range.stop);
    } else {
      merged.push({ ...range });
      picked += range.stop - range.start;
    }
  }
  if (picked > limit.tasks) throw tooManyTasks(`The task selection picks ${picked} tasks`, limit);
  if (picked === 0)
    throw new BadRequestError('The task selection picks no task; name at least one, e.g. "0:10".', {
      code: 'invalid_task',
    });
  const indices: number[] = [];
  for (const { start, stop } of merged) for (let index = start; index < stop; index++) indices.push(index);
  return indices;
}

/** The 400 for a selection of more tasks than a batch may hold (`batch_too_large`). */
function tooManyTasks(what: string, limit: TaskLimit): BadRequestError {
  return new BadRequestError(`${what}, more than the ${limit.tasks} a batch may hold (${limit.why}); select fewer.`, {
    code: 'batch_too_large',
  });
}

/** Ascending indices written compactly in selection syntax, e.g. `[0,1,2,5]` → `"0:3,5"`; parses back to the same list. */
export function formatTaskIndices(indices: readonly number[]): string {
  const pieces: string[] = [];
  let runStart = indices[0];
  for (let i = 1; i <= indices.length; i++) {
    const previous = indices[i - 1]!;
    if (i < indices.length && indices[i] === previous + 1) continue;
    pieces.push(runStart === previous ? String(previous) : `${runStart}:${previous + 1}`);
    runStart = indices[i];
  }
  return pieces.join(',');
}

/**
 * The sampling seed of one rollout: the first 31 bits of SHA-256 over the master seed, environment,
 * split, task index and sample index. Stable across machines and versions, different for every
 * sample, and a valid `seed` for every provider that takes one (a non-negative 32-bit integer).
 */
export function deriveSeed(masterSeed: number, env: string, split: string, index: number, sample: number): number {
  const digest = createHash('sha256')
    .update(['runbridge-rollout', masterSeed, env, split, index, sample].join('\0'))
    .digest();
  return digest.readUInt32BE(0) >>> 1;
}

/** The group id shared by every sample of one task: `<env>/<split>/<index>`. */
function groupIdOf(env: string, split: string, index: number): string {
  return `${env}/${split}/${index}`;
}

/** The identity of one (task, sample) pair in a rollout file: `<group id>#<sample index>`. */
export function rolloutKey(groupId: string, sample: number): string {
  return `${groupId}#${sample}`;
}

/** One (task, sample) pair to play. */
export interface PlannedRollout {
  key: string;
  groupId: string;
  index: number;
  sample: number;
  seed: number;
}

/** Every (task, sample) pair, task by task so the samples of a group finish close together. */
export function planRollouts(options: {
  env: string;
  split: string;
  indices: readonly number[];
  samples: number;
  masterSeed: number;
}): PlannedRollout[] {
  const { samples } = options;
  return options.indices.flatMap((index) =>
    Array.from({ length: samples }, (_, sample) => plannedRollout(options, index, sample)),
  );
}

/** The pair (task `index`, sample `sample`) of a plan, with its derived seed. */
export function plannedRollout(
  options: { env: string; split: string; masterSeed: number },
  index: number,
  sample: number,
): PlannedRollout {
  const { env, split, masterSeed } = options;
  const groupId = groupIdOf(env, split, index);
  return {
    key: rolloutKey(groupId, sample),
    groupId,
    index,
    sample,
    seed: deriveSeed(masterSeed, env, split, index, sample),
  };
}

function describeRange(range: TaskRange): string {
  if (range.stop === range.start + 1) return `index ${range.start}`;
  return `range ${range.start}:${range.stop ?? ''}`;
}
