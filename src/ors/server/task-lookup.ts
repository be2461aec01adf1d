import type { z } from 'zod';
import type { CreateRequestSchema } from '../ors-schemas.js';
import type { ServedEnvironment } from './environment-registry.js';
import { invalidIndex, invalidSplit } from './ors-http-errors.js';
import { OrsServerError } from './ors-server-error.js';
import { resolveTaskIndex } from './task-indices.js';

/** The number of tasks in `split`; throws 400 when the environment has no such split. */
export function countTasks(served: ServedEnvironment, split: string): number {
  const names = served.definition.splits.map((candidate) => candidate.name);
  if (!names.includes(split)) throw invalidSplit(split, names);
  return served.definition.tasks.count(split);
}

/** Task `index` of `split` (negative counts from the end); throws 400 for an unknown split or an index out of range. */
export function taskAt(served: ServedEnvironment, split: string, index: number): unknown {
  const count = countTasks(served, split);
  const resolved = resolveTaskIndex(index, count);
  if (resolved === undefined) throw invalidIndex(split, index, count);
  return served.definition.tasks.get(split, resolved);
}

/**
 * The task a `/create` body asks for: its `task_spec` checked by the environment's `taskSchema`, or
 * task `index` of `split`. Exactly one of the two must be given; anything else is a 400.
 */
export function taskForCreate(served: ServedEnvironment, body: z.output<typeof CreateRequestSchema>): unknown {
  const hasSpec = body.task_spec !== undefined;
  const hasSplitIndex = body.split !== undefined && body.index !== undefined;
  if (hasSpec === hasSplitIndex) {
    throw new OrsServerError('Provide either task_spec or both split and index, not both/neither.', {
      code: 'invalid_task',
    });
  }
  if ((body.split === undefined) !== (body.index === undefined)) {
    throw new OrsServerError('split and index must both be provided together (or send task_spec alone).', {
      code: 'invalid_task',
    });
  }
  if (body.split !== undefined && body.index !== undefined) return taskAt(served, body.split, body.index);
  const parsed = served.definition.taskSchema.safeParse(body.task_spec);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new OrsServerError(`task_spec does not fit environment "${served.definition.name}": ${problems}.`, {
      code: 'invalid_task',
    });
  }
  return parsed.data;
}
