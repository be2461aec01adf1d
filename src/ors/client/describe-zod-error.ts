import type { z } from 'zod';

/** One validation problem, without the offending value (it may be large, or secret). */
export interface IssueSummary {
  path: string;
  message: string;
}

/**
 * Summarises a zod error as `field.path: message` of its first issue (plus a count of the rest) and
 * lists every issue's path and message; values are left out on purpose.
 */
export function describeZodError(error: z.ZodError): { summary: string; issues: IssueSummary[] } {
  const issues = error.issues.map((issue) => ({
    path: issue.path.length === 0 ? '(root)' : issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const [first] = issues;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return { summary: first ? `${first.path}: ${first.message}${more}` : 'invalid value', issues };
}
