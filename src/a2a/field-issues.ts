import type { z } from 'zod';

/** One bad field: where (dot-separated, under `prefix`) and what is wrong with it. */
export interface FieldIssue {
  path: string;
  message: string;
}

/**
 * The first `max` issues of a failed validation as `{path, message}` — the `details` of runbridge's
 * 400s, and the field violations of an A2A error — and the sentence naming them all.
 */
export function fieldIssues(
  error: z.ZodError,
  prefix: readonly string[] = [],
  max = 20,
): { issues: FieldIssue[]; summary: string } {
  const issues = error.issues.slice(0, max).map((issue) => ({
    path: [...prefix, ...issue.path.map(String)].join('.') || '(root)',
    message: issue.message,
  }));
  return { issues, summary: issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ') };
}
