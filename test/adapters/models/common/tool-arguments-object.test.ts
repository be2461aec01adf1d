import { describe, expect, it } from 'vitest';
import {
  replayableToolArguments,
  toolArgumentsObject,
} from '../../../../adapters/models/common/tool-arguments-object.js';

describe('toolArgumentsObject', () => {
  it('parses a JSON object, treats empty text as {}, and rejects anything else', () => {
    expect(toolArgumentsObject('{"a":1}')).toEqual({ a: 1 });
    expect(toolArgumentsObject('  ')).toEqual({});
    expect(toolArgumentsObject('{"a": ')).toBeUndefined();
    expect(toolArgumentsObject('[1]')).toBeUndefined();
    expect(toolArgumentsObject('null')).toBeUndefined();
  });
});

describe('replayableToolArguments', () => {
  it("keeps the model's own text for a JSON object and sends {} otherwise", () => {
    expect(replayableToolArguments('{ "a" : 1 }')).toBe('{ "a" : 1 }');
    expect(replayableToolArguments('')).toBe('{}');
    expect(replayableToolArguments('{"a": ')).toBe('{}');
  });
});
