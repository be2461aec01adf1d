/**
 * Characters that change how a line reads rather than what it says: C0 and C1 controls and DEL (a
 * line break starts a line that looks like the log's own, a carriage return or an ANSI escape rewrites
 * what a terminal shows), the Unicode line and paragraph separators, and the bidirectional overrides
 * and isolates (they reorder what is shown).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with each control character written as its escape (`\n`, `\r`, `\t`, else `\u` and four hex digits), so that
 * a name or message from outside — an ORS tool's name, a model's error — stays on its one line of a
 * readable log and cannot forge another. `keep` lists characters left as they are.
 */
export function escapeControls(text: string, keep = ''): string {
  return text.replace(CONTROLS, (char) =>
    keep.includes(char) ? char : (NAMED[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
