import type { z } from 'zod';
import { BadRequestError } from '../errors.js';

/**
 * Validates `value` with `schema`, or throws a 400 whose message names every bad field and whose
 * details list them (`path`, `message`), so a caller can fix all of them in one go.
 */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join('.') || '(root)',
    message: issue.message,
  }));
  const summary = issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  throw new BadRequestError(`Invalid ${what}: ${summary}.`, { code: 'invalid_request', details: issues });
}
