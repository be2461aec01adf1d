import { z } from 'zod';
import { type Kind, optionalText } from './setting-kinds.js';

/** A JSON object, written out in the variable; unset or blank is `{}`. Anything else says what it is instead. */
export function jsonObject(): Kind<Record<string, unknown>> {
  return {
    schema: optionalText.transform((text, context): Record<string, unknown> => {
      if (text === undefined) return {};
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: `must be a JSON object: ${(error as Error).message}` });
        return z.NEVER;
      }
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
      context.addIssue({
        code: 'custom',
        message: `must be a JSON object, not ${Array.isArray(value) ? 'an array' : typeof value}`,
      });
      return z.NEVER;
    }),
    accepts: 'a JSON object',
    default: '`{}`',
  };
}
