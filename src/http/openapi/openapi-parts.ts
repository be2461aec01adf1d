import { z } from 'zod';
import type { JsonSchema } from './json-schemas.js';

/** Pieces of the OpenAPI document that its route groups share. */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (name: string) => ({ 'application/json': { schema: ref(name) } });

/** Query parameters from a route's own (strict) query schema, as the client writes them. */
export function queryParameters(schema: z.ZodObject, descriptions: Record<string, string>): unknown[] {
  const generated = z.toJSONSchema(schema, { io: 'input' }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(generated.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: generated.required?.includes(name) ?? false,
    ...(descriptions[name] === undefined ? {} : { description: descriptions[name] }),
    schema: property,
  }));
}

/** Error answers by status, each with the error body of docs/protocol.md §2. */
export function errors(statuses: Record<number, string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [status, { description, content: json('ErrorBody') }]),
  );
}

export const unauthorized = { 401: 'No valid `Authorization: Bearer <key>` (when keys are configured).' };
