import { z } from 'zod';

/** A JSON Schema document, as served in a tool's `input_schema`. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema of a tool's input, or null for a tool without input (served as `"input_schema": null`).
 * The schema describes what a caller may *send* (`io: 'input'`), so a field with a default is optional;
 * parts JSON Schema cannot express (a transform) become `{}` instead of throwing. Keys are passed through
 * untouched — a property literally named `title` stays a property, it is not mistaken for an annotation.
 * The root `$schema` keyword is dropped: the reference server's schemas carry none, and the bridge hands
 * this object to model vendors as tool parameters, where a dialect URI is noise at best.
 */
export function toolInputSchema(input: z.ZodType | null): JsonSchema | null {
  if (input === null) return null;
  const schema: JsonSchema = { ...z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' }) };
  delete schema.$schema;
  return schema;
}
