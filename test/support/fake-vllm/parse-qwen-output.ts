/**
 * What the fake vLLM server's own parsers make of a completion on its chat endpoint, as vLLM's
 * `qwen3` reasoning parser and `hermes` tool parser do: the `<think>` block as reasoning, each
 * `<tool_call>` block as a call with its arguments re-serialised, the rest as the answer.
 */
export function parseQwenOutput(text: string): {
  reasoning: string;
  content: string;
  toolCalls: Array<{ name: string; arguments: string }>;
} {
  let rest = text;
  let reasoning = '';
  const thinkEnd = rest.indexOf('</think>');
  if (thinkEnd >= 0) {
    reasoning = rest
      .slice(0, thinkEnd)
      .replace(/^\s*<think>/, '')
      .trim();
    rest = rest.slice(thinkEnd + '</think>'.length);
  }
  const toolCalls: Array<{ name: string; arguments: string }> = [];
  const content = rest
    .replace(/<tool_call>([\s\S]*?)<\/tool_call>/g, (_, body: string) => {
      const call = JSON.parse(body) as { name: string; arguments: unknown };
      toolCalls.push({ name: call.name, arguments: JSON.stringify(call.arguments) });
      return '';
    })
    .trim();
  return { reasoning, content, toolCalls };
}
