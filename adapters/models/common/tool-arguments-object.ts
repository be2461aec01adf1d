/**
 * The arguments of a tool call as an object, or `undefined` when the model's text is not a JSON
 * object (invalid JSON, or JSON of another shape). An empty text counts as `{}`: vendors stream no
 * argument deltas at all for a call without arguments.
 */
export function toolArgumentsObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The arguments text to send back to a vendor in an earlier assistant turn: the model's own text
 * when it is a JSON object, otherwise `{}`. Some servers parse past arguments (vLLM turns them into
 * objects for its chat templates, Anthropic takes only objects) and would refuse the whole request;
 * the tool result that follows already tells the model its arguments were unusable.
 */
export function replayableToolArguments(text: string): string {
  if (text.trim() === '') return '{}';
  return toolArgumentsObject(text) === undefined ? '{}' : text;
}
