/**
 * One JSON line of an export, with the numbers that are floats by nature written as floats.
 *
 * `JSON.stringify` writes a reward of 1 as `1` and one of 0.5 as `0.5`; Python's `json` then reads an
 * int in one row and a float in the next, and Arrow-based readers (Hugging Face `datasets`) infer an
 * integer column from the first rows and fail on the first fraction. Every number at one of
 * `floatPaths` is therefore written with a fraction (`1.0`). Paths are keys joined by `.`, with `[]`
 * for the items of an array: `reward`, `token_logprobs[]`, `trajectory[].tokens.completion_logprobs[]`.
 * Everything else is written exactly as `JSON.stringify` writes it, key order included.
 */
export function toJsonLine(row: unknown, floatPaths: ReadonlySet<string>): string {
  return `${write(row, '', floatPaths) ?? 'null'}\n`;
}

function write(value: unknown, path: string, floatPaths: ReadonlySet<string>): string | undefined {
  if (typeof value === 'number') return floatPaths.has(path) ? floatText(value) : JSON.stringify(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    return `[${value.map((item) => write(item, `${path}[]`, floatPaths) ?? 'null').join(',')}]`;
  }
  const members: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    const text = write(inner, path === '' ? key : `${path}.${key}`, floatPaths);
    if (text !== undefined) members.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${members.join(',')}}`;
}

/** `1` → `1.0`; fractions, exponents and non-finite numbers (`null`) as `JSON.stringify` writes them. */
function floatText(value: number): string {
  const text = JSON.stringify(value);
  return /^-?\d+$/.test(text) ? `${text}.0` : text;
}
