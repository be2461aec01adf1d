import { describe, expect, it } from 'vitest';
import { countPromptTokens, countTokens, splitTokens } from '../../../../adapters/models/offline/token-split.js';

describe('splitTokens', () => {
  it('cuts words, numbers and punctuation with their leading whitespace, losing nothing', () => {
    expect(splitTokens('The answer is 23.')).toEqual(['The', ' answer', ' is', ' 23', '.']);
    const text = '  Hello,\n world — 12 * (3 + 4) = 84!  ';
    expect(splitTokens(text).join('')).toBe(text);
    expect(splitTokens('')).toEqual([]);
  });

  it('never splits a surrogate pair', () => {
    const tokens = splitTokens('ok 🎉🎉 done');
    expect(tokens).toEqual(['ok', ' 🎉', '🎉', ' done']);
  });

  it('counts prompt tokens over messages and tools, images at a flat rate', () => {
    expect(countTokens('a b c')).toBe(3);
    const text = countPromptTokens([{ role: 'user', content: [{ type: 'text', text: 'a b c' }] }], []);
    const image = countPromptTokens(
      [{ role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] }],
      [],
    );
    expect(text).toBe(3 + 3);
    expect(image).toBe(3 + 85);
    const withTool = countPromptTokens(
      [],
      [{ name: 'submit', description: 'Submit it', inputSchema: { type: 'object' } }],
    );
    expect(withTool).toBeGreaterThan(3);
  });
});
