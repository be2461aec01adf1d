import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { argumentsFor } from '../../../../adapters/models/offline/schema-arguments.js';

/** What the offline model sends a tool it does not know: the plainest arguments its schema accepts. */
describe('arguments made from a JSON Schema', () => {
  it('fills the required properties only, each with a value its type and bounds accept', () => {
    const schema = z.toJSONSchema(
      z.object({
        name: z.string().min(10),
        code: z.string().max(3),
        count: z.number().int().min(3),
        ratio: z.number().gt(0).lt(1),
        level: z.number().int().min(-10).max(-2),
        step: z.number().int().min(7).multipleOf(5),
        flag: z.boolean(),
        tags: z.array(z.string()).min(2),
        kind: z.enum(['a', 'b']),
        fixed: z.literal('yes'),
        nested: z.object({ id: z.number() }),
        maybe: z.string().nullable(),
        either: z.union([z.number(), z.string()]),
        optional: z.string().optional(),
      }),
    );
    const args = argumentsFor(schema);
    expect(args).toEqual({
      name: 'examplexxx',
      code: 'exa',
      count: 3,
      ratio: expect.any(Number),
      level: -2,
      step: 10,
      flag: false,
      tags: ['example', 'example'],
      kind: 'a',
      fixed: 'yes',
      nested: { id: 0 },
      maybe: 'example',
      either: 0,
    });
    expect(args.ratio).toBeGreaterThan(0);
    expect(args.ratio).toBeLessThan(1);
  });

  it('tries the hints for strings first, keeping only those the length and pattern allow', () => {
    const schema = {
      type: 'object',
      properties: { word: { type: 'string', pattern: '^[a-z]+$', maxLength: 8 } },
      required: ['word'],
    };
    expect(argumentsFor(schema, ['Two words', 'far-too-long-word', 'lantern'])).toEqual({ word: 'lantern' });
  });

  it('follows local $refs, stops at recursion, and keeps __proto__ a plain property', () => {
    // Parsed, as a schema from an ORS server is: a literal `__proto__` key would set the prototype.
    const args = argumentsFor(
      JSON.parse(`{
        "type": "object",
        "properties": { "node": { "$ref": "#/$defs/node" }, "__proto__": { "type": "number" } },
        "required": ["node", "__proto__"],
        "$defs": { "node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/node" } }, "required": ["next"] } }
      }`),
    );
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    let depth = 0;
    for (let node = args.node as { next?: unknown } | null; node !== null; node = (node.next ?? null) as typeof node)
      depth++;
    expect(depth).toBeGreaterThan(2);
  });

  it('gives an empty object for a schema that is not an object', () => {
    expect(argumentsFor({ type: 'string' })).toEqual({});
    expect(argumentsFor({})).toEqual({});
  });
});
