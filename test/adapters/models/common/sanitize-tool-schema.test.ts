import { describe, expect, it } from 'vitest';
import { sanitizeToolSchema } from '../../../../adapters/models/common/sanitize-tool-schema.js';

describe('sanitizeToolSchema', () => {
  it('removes $schema at the root and in nested subschemas but keeps properties named $schema, title or type', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'Args',
      type: 'object',
      properties: {
        title: { type: 'string', title: 'The title' },
        $schema: { type: 'string' },
        type: { enum: ['a', 'b'] },
        nested: { $schema: 'x', type: 'object', properties: { title: { type: 'string' } } },
        list: { type: 'array', items: { $schema: 'x', type: 'object', properties: { title: { type: 'string' } } } },
      },
      $defs: { Book: { $schema: 'x', type: 'object', properties: { title: { type: 'string' } } } },
      anyOf: [{ $schema: 'x', required: ['title'] }],
      required: ['title'],
    };
    expect(sanitizeToolSchema(schema)).toEqual({
      title: 'Args',
      type: 'object',
      properties: {
        title: { type: 'string', title: 'The title' },
        $schema: { type: 'string' },
        type: { enum: ['a', 'b'] },
        nested: { type: 'object', properties: { title: { type: 'string' } } },
        list: { type: 'array', items: { type: 'object', properties: { title: { type: 'string' } } } },
      },
      $defs: { Book: { type: 'object', properties: { title: { type: 'string' } } } },
      anyOf: [{ required: ['title'] }],
      required: ['title'],
    });
  });

  it('gives the root type object and empty properties when they are missing or different', () => {
    expect(sanitizeToolSchema({})).toEqual({ type: 'object', properties: {} });
    expect(sanitizeToolSchema({ type: ['object', 'null'], properties: { a: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });

  it('keeps data keywords and additionalProperties untouched, including values that look like schemas', () => {
    const schema = {
      type: 'object',
      properties: { mode: { type: 'string', default: 'fast', examples: [{ $schema: 'kept: this is data' }] } },
      additionalProperties: false,
    };
    expect(sanitizeToolSchema(schema)).toEqual(schema);
  });

  it('does not modify its input', () => {
    const schema = { $schema: 'x', properties: { a: { $schema: 'y', type: 'string' } } };
    const copy = structuredClone(schema);
    sanitizeToolSchema(schema);
    expect(schema).toEqual(copy);
  });
});
