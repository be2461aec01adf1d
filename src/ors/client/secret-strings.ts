/**
 * Every string value inside `secrets` (nested objects and arrays included), raw and JSON-escaped,
 * longest first — what must be scrubbed from anything a server echoes back (FastAPI's 422 bodies,
 * for one, quote the request's input).
 */
export function secretStrings(secrets: unknown): string[] {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      if (value === '') return;
      found.add(value);
      found.add(JSON.stringify(value).slice(1, -1));
    } else if (typeof value === 'number' || typeof value === 'bigint') {
      found.add(String(value));
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const item of Object.values(value)) visit(item);
    }
  };
  visit(secrets);
  return [...found].sort((a, b) => b.length - a.length);
}
