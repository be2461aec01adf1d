import { describe, expect, it } from 'vitest';
import { toJsonLine } from '../../../src/rollouts/export/json-line.js';

describe('toJsonLine', () => {
  it('writes the numbers at float paths with a fraction, and everything else as JSON.stringify does', () => {
    const row = {
      reward: 1,
      count: 1,
      text: 'a "quoted" 1',
      skipped: undefined,
      nested: { reward: 0, list: [0, -0.5, 2] },
      items: [{ reward: 3 }, { reward: null }],
    };
    const floats = new Set(['reward', 'nested.list[]', 'items[].reward']);
    expect(toJsonLine(row, floats)).toBe(
      '{"reward":1.0,"count":1,"text":"a \\"quoted\\" 1","nested":{"reward":0,"list":[0.0,-0.5,2.0]},"items":[{"reward":3.0},{"reward":null}]}\n',
    );
    expect(toJsonLine(row, new Set())).toBe(`${JSON.stringify(row)}\n`);
  });

  it('leaves exponents and fractions as they are', () => {
    expect(toJsonLine({ x: 1e21, y: 1.5e-7, z: -3 }, new Set(['x', 'y', 'z']))).toBe(
      '{"x":1e+21,"y":1.5e-7,"z":-3.0}\n',
    );
  });
});
