import type { z } from 'zod';

/**
 * One entry of a 422 body, in FastAPI's shape (`{"detail": [{type, loc, msg, input}]}`), which is what
 * the reference server answers for a body that does not fit its model; clients written against it
 * read `loc` and `msg`.
 */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

/**
 * The 422 entries for a body that failed `schema.safeParse(body)`. An unknown key becomes one
 * `extra_forbidden` entry per key (FastAPI's wording), a missing field `missing`; any other problem keeps
 * zod's code and message. `loc` starts with `"body"` and `input` is the offending value, as in FastAPI.
 */
export function validationIssues(error: z.ZodError, body: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map((key) => (typeof key === 'number' ? key : String(key)));
    const here = valueAt(body, path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({
          type: 'extra_forbidden',
          loc: ['body', ...path, key],
          msg: 'Extra inputs are not permitted',
          input: valueAt(here, [key]),
        });
      }
    } else if (issue.code === 'invalid_type' && here === undefined) {
      issues.push({
        type: 'missing',
        loc: ['body', ...path],
        msg: 'Field required',
        input: path.length === 0 ? null : valueAt(body, path.slice(0, -1)),
      });
    } else {
      issues.push({ type: issue.code, loc: ['body', ...path], msg: issue.message, input: here ?? null });
    }
  }
  return issues;
}

/** The 422 entry for a body that is not JSON at all (FastAPI's `json_invalid`). */
export function jsonInvalidIssue(reason: string): ValidationIssue {
  return { type: 'json_invalid', loc: ['body', 0], msg: `JSON decode error: ${reason}`, input: {} };
}

function valueAt(value: unknown, path: (string | number)[]): unknown {
  let current = value;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[key];
  }
  return current;
}
