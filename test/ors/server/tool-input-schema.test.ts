import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { toolInputSchema } from '../../../src/ors/server/tool-input-schema.js';

describe('toolInputSchema', () => {
  it('is null for a tool without input', () => {
    expect(toolInputSchema(null)).toBeNull();
  });

  it('keeps a property literally named title, with its description', () => {
    const schema = toolInputSchema(z.object({ title: z.string().describe('the title'), body: z.string() }));
    expect(schema).toEqual({
      type: 'object',
      properties: { title: { type: 'string', description: 'the title' }, body: { type: 'string' } },
      required: ['title', 'body'],
    });
  });

  it('describes what a caller sends: a field with a default is not required', () => {
    const schema = toolInputSchema(z.object({ answer: z.string(), tries: z.number().default(1) }));
    expect(schema?.required).toEqual(['answer']);
  });

  it('drops the $schema dialect keyword, which the reference server never sends', () => {
    expect(toolInputSchema(z.object({ a: z.string() }))).not.toHaveProperty('$schema');
  });

  it('does not throw for a transform, which JSON Schema cannot express', () => {
    const schema = toolInputSchema(z.object({ n: z.string().transform((value) => value.length) }));
    expect(schema?.properties).toEqual({ n: { type: 'string' } });
  });
});
