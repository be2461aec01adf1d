import { z } from 'zod';
import { RunEventSchema } from '../../protocol/run-events.js';

/** A JSON Schema (draft 2020-12) document or fragment, as zod's `toJSONSchema` writes it. */
export type JsonSchema = Record<string, unknown>;

/**
 * JSON Schemas of named zod schemas, generated with zod's own `toJSONSchema`: where one named schema
 * contains another, it refers to it (`$ref` to `uri(name)`) instead of repeating it. The per-schema
 * `$schema` and `$id` are left out, so the results can sit in `$defs` or OpenAPI components.
 */
export function namedJsonSchemas(
  entries: ReadonlyArray<readonly [string, z.ZodType]>,
  uri: (name: string) => string,
  io: 'input' | 'output' = 'output',
): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [name, schema] of entries) registry.add(schema, { id: name });
  const { schemas } = z.toJSONSchema(registry, { uri, io });
  return Object.fromEntries(
    Object.entries(schemas).map(([name, { $schema: _schema, $id: _id, ...schema }]) => [name, schema as JsonSchema]),
  );
}

/** The events of docs/protocol.md §3.1 by type (`run.started`, …), as the discriminated union lists them. */
export function runEventTypes(): Array<readonly [string, z.ZodType]> {
  return RunEventSchema.options.map((option) => [option.shape.event.value, option] as const);
}

/**
 * `GET /v1/schema/events`: one JSON Schema for every run event, generated from the zod schemas the
 * server itself validates with — `oneOf` the events, each under `$defs` by its type. A client can
 * validate each `data:` payload of `format=events` with it.
 */
export function runEventsJsonSchema(): JsonSchema {
  const events = runEventTypes();
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'RunEvent',
    description:
      'A runbridge run event (docs/protocol.md §3.1): every payload carries event (its type), seq, run_id and timestamp (epoch seconds), plus the fields of its type.',
    oneOf: events.map(([type]) => ({ $ref: `#/$defs/${type}` })),
    $defs: namedJsonSchemas(events, (type) => `#/$defs/${type}`),
  };
}
