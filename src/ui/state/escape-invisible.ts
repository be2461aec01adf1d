/**
 * Characters a person cannot see, or that reorder what they see: bidi controls (U+202E, right-to-left
 * override, makes `txt.exe` read as `exe.txt`), every default-ignorable code point (zero-width spaces
 * and joiners, variation selectors, the invisible tag characters U+E0000–U+E007F that smuggle text),
 * line and paragraph separators, and control characters other than tab and line feed.
 */
const INVISIBLE = /[\p{Bidi_Control}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]|(?![\t\n])\p{Cc}/gu;

/**
 * `text` with every invisible or reordering character written as its JSON escape (`\u202E`; a
 * character beyond U+FFFF as its two UTF-16 escapes), so what a person approves is what they see
 * (docs/ui.md). JSON as `JSON.stringify` writes it stays JSON that parses to the same value: such
 * characters only occur in its strings, where the escape means the character itself.
 */
export function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (found) =>
    Array.from(
      { length: found.length },
      (_, at) => `\\u${found.charCodeAt(at).toString(16).toUpperCase().padStart(4, '0')}`,
    ).join(''),
  );
}
