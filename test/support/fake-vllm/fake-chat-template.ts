/**
 * The chat template of the fake vLLM server, written after the shape of Qwen3's: tools in the system
 * prompt, `<tool_call>` blocks, tool results as `<tool_response>` inside a user turn, `<|im_end|>`
 * followed by a newline after every message, and an assistant turn's reasoning kept only after the
 * last real user message — earlier turns' `<think>` blocks are dropped. Tool-call arguments are
 * rendered from their parsed value (vLLM parses them before templating), with Python's JSON spacing.
 */

/** A message as vLLM's chat endpoints and `/tokenize` take it, as far as the template reads it. */
export interface TemplateMessage {
  role: string;
  content?: string | null | Array<{ type: string; text?: string }>;
  reasoning_content?: string | null;
  tool_calls?: Array<{ id?: string; function: { name: string; arguments: string | Record<string, unknown> } }>;
  tool_call_id?: string;
}

/** A tool as the chat endpoints take it. */
export interface TemplateTool {
  type?: string;
  function: { name: string; description?: string; parameters?: unknown };
}

/** How a render is asked for. */
export interface RenderOptions {
  tools?: readonly TemplateTool[] | null;
  addGenerationPrompt: boolean;
  /**
   * `chat_template_kwargs`: `enable_thinking: false` closes an empty think block in the generation
   * prompt; `open_thinking: true` opens one.
   */
  kwargs?: Record<string, unknown> | null;
}

/** The conversation as text, ending with the generation prompt when asked for. */
export function renderChat(messages: readonly TemplateMessage[], options: RenderOptions): string {
  let out = '';
  const tools = options.tools ?? [];
  const first = messages[0];
  const system = first?.role === 'system' ? textOf(first.content) : undefined;
  if (tools.length > 0) {
    out += '<|im_start|>system\n';
    if (system !== undefined) out += `${system}\n\n`;
    out += '# Tools\n\nYou may call one or more functions.\n\n<tools>';
    for (const tool of tools) out += `\n${pythonJson(tool)}`;
    out +=
      '\n</tools>\n\nFor each function call, return a json object with the function name and arguments within ' +
      '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n';
  } else if (system !== undefined) {
    out += `<|im_start|>system\n${system}<|im_end|>\n`;
  }
  const lastQuery = lastQueryIndex(messages);
  messages.forEach((message, index) => {
    if (index === 0 && message.role === 'system') return;
    switch (message.role) {
      case 'assistant':
        out += renderAssistant(message, index > lastQuery, index === messages.length - 1);
        break;
      case 'tool': {
        if (messages[index - 1]?.role !== 'tool') out += '<|im_start|>user';
        out += `\n<tool_response>\n${textOf(message.content)}\n</tool_response>`;
        if (messages[index + 1]?.role !== 'tool') out += '<|im_end|>\n';
        break;
      }
      default:
        out += `<|im_start|>${message.role}\n${textOf(message.content)}<|im_end|>\n`;
    }
  });
  if (options.addGenerationPrompt) {
    out += '<|im_start|>assistant\n';
    if (options.kwargs?.enable_thinking === false) out += '<think>\n\n</think>\n\n';
    // As the templates of Qwen3's thinking-only models do: the model writes its reasoning without the tag.
    else if (options.kwargs?.open_thinking === true) out += '<think>\n';
  }
  return out;
}

function renderAssistant(message: TemplateMessage, afterLastQuery: boolean, last: boolean): string {
  let content = textOf(message.content);
  let reasoning = typeof message.reasoning_content === 'string' ? message.reasoning_content : '';
  if (typeof message.reasoning_content !== 'string' && content.includes('</think>')) {
    const cut = content.indexOf('</think>');
    reasoning = content.slice(0, cut).replace(/^[\s\S]*<think>/, '');
    content = content.slice(cut + '</think>'.length);
  }
  reasoning = reasoning.replace(/^\n+|\n+$/g, '');
  let out =
    afterLastQuery && (last || reasoning !== '')
      ? `<|im_start|>assistant\n<think>\n${reasoning}\n</think>\n\n${content.replace(/^\n+/, '')}`
      : `<|im_start|>assistant\n${content}`;
  (message.tool_calls ?? []).forEach((call, position) => {
    if (position > 0 || content !== '') out += '\n';
    const args =
      typeof call.function.arguments === 'string' ? JSON.parse(call.function.arguments) : call.function.arguments;
    out += `<tool_call>\n{"name": ${JSON.stringify(call.function.name)}, "arguments": ${pythonJson(args)}}\n</tool_call>`;
  });
  return `${out}<|im_end|>\n`;
}

/** The last user message that is a person's query, not tool results wrapped as a user turn. */
function lastQueryIndex(messages: readonly TemplateMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    const text = textOf(message.content);
    if (message.role === 'user' && !(text.startsWith('<tool_response>') && text.endsWith('</tool_response>')))
      return index;
  }
  return messages.length - 1;
}

function textOf(content: TemplateMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

/** JSON as Python's `json.dumps` writes it by default (and Jinja's `tojson`): `", "` and `": "` between items. */
export function pythonJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${pythonJson(item)}`);
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
