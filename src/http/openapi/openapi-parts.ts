import { z } from 'zod';
import type { JsonSchema } from './json-schemas.js';

/** Pieces of the OpenAPI document that its operations share. */

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const json = (name: string) => ({ 'application/json': { schema: ref(name) } });

/** Where a parameter is sent, as OpenAPI names it. */
export type ParameterIn = 'path' | 'query' | 'header';

/**
 * OpenAPI parameters from one of a route's zod objects (its params, query or headers), as a client writes
 * them: each property's JSON Schema, its description lifted to the parameter, required unless it may be
 * left out (a path parameter always is).
 */
export function parametersOf(schema: z.ZodObject, where: ParameterIn): unknown[] {
  const generated = z.toJSONSchema(schema, { io: 'input' }) as {
    properties?: Record<string, JsonSchema>;
    required?: string[];
  };
  return Object.entries(generated.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: where,
    required: where === 'path' || (generated.required?.includes(name) ?? false),
    ...(description === undefined ? {} : { description }),
    schema: property,
  }));
}
