import { describe, expect, it } from 'vitest';
import { cutMessage } from '../../src/protocol/cut-message.js';

/** What an error message keeps of what a server said (src/protocol/cut-message.ts). */
describe('cutMessage', () => {
  it('keeps a message that fits whole', () => {
    expect(cutMessage('The server said no.', 19)).toBe('The server said no.');
  });

  it('cuts a longer one after its last whole word, and says so within the bound', () => {
    const cut = cutMessage('Incorrect API key provided: Bearer sk-OPERATOR-0123456789abcdef. Try again.', 50);
    expect(cut).toBe('Incorrect API key provided: Bearer … (cut)');
    expect(cut.length).toBeLessThanOrEqual(50);
  });

  it.each([
    ['a key', 'key="sk-OPERATOR-0123456789abcdef"', 'key="'],
    ['a run of word characters with no end', 'x'.repeat(100), ''],
  ])('drops %s the cut runs through, never half of it', (_what, text, kept) => {
    expect(cutMessage(text, 20)).toBe(`${kept}… (cut)`);
  });

  it('keeps a word that ends right at the cut', () => {
    expect(cutMessage('one two three four', 14)).toBe('one two… (cut)');
    expect(cutMessage('one two, three four', 15)).toBe('one two,… (cut)');
  });
});
