/**
 * A tool call's arguments text as the JSON object ORS takes, or null when it is not one; empty text is
 * `{}` (models call tools without input that way).
 */
export function parseToolArguments(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
