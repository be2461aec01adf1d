import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback stand-in for vLLM's OpenAI-compatible `/v1/chat/completions`, streaming as vLLM does
 * with `return_token_ids` and `logprobs`: the first chunk carries the role and the prompt's ids in a
 * top-level `prompt_token_ids`; then one chunk per generated token, each with that token's id in
 * `choices[0].token_ids` and its logprob in `choices[0].logprobs.content` — also for tokens the
 * reasoning or tool parser holds back, which come with an empty delta; the last token (end of turn)
 * comes with the finish reason; a usage chunk with empty `choices` follows when asked for.
 *
 * Unlike replaying a recorded stream, the token ids are computed: the request's messages go through
 * a Qwen-style chat template (tools in the system prompt, `<tool_call>` blocks, tool results as
 * `<tool_response>`) and a toy tokenizer (special tokens, words, digits, whitespace runs,
 * punctuation). Like Qwen3's template, past turns are rendered without their reasoning — the bridge
 * does not send it back anyway — so an episode whose turns reason gets prompts that do not extend
 * the previous turn's tokens, and one whose turns do not reason gets prompts that do.
 */

/** What the fake model does in one turn. */
export interface FakeVllmTurn {
  reasoning?: string;
  content?: string;
  toolCalls?: Array<{ name: string; arguments: string }>;
}

/** A Chat Completions request body, as far as the fake reads it. */
export interface FakeVllmRequest {
  messages: Array<{
    role: string;
    content: string | null | Array<{ type: string; text?: string }>;
    tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  }>;
  tools?: Array<{ function: unknown }>;
  seed?: number;
  logprobs?: boolean;
  return_token_ids?: boolean;
  stream_options?: { include_usage?: boolean };
}

/** One request and the token data the fake answered it with. */
export interface FakeVllmExchange {
  request: FakeVllmRequest;
  promptIds: number[];
  completionIds: number[];
  logprobs: number[];
}

export interface FakeVllmServer {
  /** `http://127.0.0.1:<port>`; the OpenAI base URL is this plus `/v1`. */
  url: string;
  /** Every request answered, in order. */
  exchanges: FakeVllmExchange[];
  close(): Promise<void>;
}

const SPECIAL: Record<string, number> = {
  '<|im_start|>': 151644,
  '<|im_end|>': 151645,
  '<tool_call>': 151657,
  '</tool_call>': 151658,
  '<think>': 151667,
  '</think>': 151668,
};
const PIECES =
  /<\|im_start\|>|<\|im_end\|>|<tool_call>|<\/tool_call>|<think>|<\/think>|\s+|[A-Za-z]+|\d|[^\sA-Za-z\d]/gu;

interface Token {
  id: number;
  text: string;
  /** Offset of the token in the text it was cut from. */
  start: number;
}

/** The toy tokenizer: special tokens by id, every other piece by a stable hash. */
export function tokenize(text: string): Token[] {
  return [...text.matchAll(PIECES)].map((match) => ({
    id: SPECIAL[match[0]] ?? 1000 + (fnv1a(match[0]) % 100_000),
    text: match[0],
    start: match.index,
  }));
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return hash;
}

function textOf(content: FakeVllmRequest['messages'][number]['content']): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}

function toolCallsText(calls: ReadonlyArray<{ name: string; arguments: string }>): string {
  return calls
    .map((call) => `<tool_call>\n{"name": ${JSON.stringify(call.name)}, "arguments": ${call.arguments}}\n</tool_call>`)
    .join('\n');
}

/** The prompt as the Qwen-style template renders it, ending with the generation prompt. */
export function renderPrompt(request: FakeVllmRequest): string {
  let text = '';
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    text += `<|im_start|>system\n# Tools\n<tools>\n${tools.map((tool) => JSON.stringify(tool.function)).join('\n')}\n</tools><|im_end|>\n`;
  }
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      const calls = (message.tool_calls ?? []).map((call) => call.function);
      text += `<|im_start|>assistant\n${textOf(message.content)}${toolCallsText(calls)}<|im_end|>\n`;
    } else if (message.role === 'tool') {
      text += `<|im_start|>user\n<tool_response>\n${textOf(message.content)}\n</tool_response><|im_end|>\n`;
    } else {
      text += `<|im_start|>${message.role}\n${textOf(message.content)}<|im_end|>\n`;
    }
  }
  return `${text}<|im_start|>assistant\n`;
}

/** Starts the fake on a free loopback port; `policy` decides each turn from the request. */
export async function startFakeVllmServer(policy: (request: FakeVllmRequest) => FakeVllmTurn): Promise<FakeVllmServer> {
  const exchanges: FakeVllmExchange[] = [];
  let requestCount = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeVllmRequest;
    const turn = policy(request);
    const promptIds = tokenize(renderPrompt(request)).map((token) => token.id);
    const calls = turn.toolCalls ?? [];
    const reasoningText = turn.reasoning ? `<think>\n${turn.reasoning}\n</think>\n\n` : '';
    const contentEnd = reasoningText.length + (turn.content ?? '').length;
    const generated = tokenize(`${reasoningText}${turn.content ?? ''}${toolCallsText(calls)}<|im_end|>`);
    const logprobs = generated.map((token, position) =>
      position === 0 ? 0 : -((fnv1a(`${request.seed}:${position}:${token.id}`) % 5000) + 1) / 1000,
    );
    exchanges.push({ request, promptIds, completionIds: generated.map((token) => token.id), logprobs });

    const id = `chatcmpl-fake${++requestCount}`;
    const head = { id, object: 'chat.completion.chunk', created: 1_764_000_000, model: 'Qwen/Qwen3-8B' };
    const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    send({
      ...head,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }],
      prompt_token_ids: request.return_token_ids ? promptIds : null,
    });
    let callIndex = -1;
    generated.forEach((token, position) => {
      const last = position === generated.length - 1;
      let delta: Record<string, unknown> = {};
      if (token.id === SPECIAL['<tool_call>']) callIndex++;
      if (last) {
        delta = calls.length > 0 ? {} : { content: '' };
      } else if (token.start < reasoningText.length) {
        // The reasoning parser holds back the tags and the blank line after `</think>`.
        const inside = token.start > 0 && token.start < reasoningText.length - '\n</think>\n\n'.length;
        if (inside) delta = { reasoning: token.text };
      } else if (token.start < contentEnd) {
        delta = { content: token.text };
      } else if (callIndex >= 0 && generated[position - 1]?.id === SPECIAL['<tool_call>']) {
        const call = calls[callIndex]!;
        const callId = `chatcmpl-tool-${requestCount}-${callIndex}`;
        delta = {
          tool_calls: [
            { index: callIndex, id: callId, type: 'function', function: { name: call.name, arguments: '' } },
          ],
        };
      } else if (token.id === SPECIAL['</tool_call>']) {
        delta = { tool_calls: [{ index: callIndex, function: { arguments: calls[callIndex]!.arguments } }] };
      }
      send({
        ...head,
        choices: [
          {
            index: 0,
            delta,
            logprobs: request.logprobs
              ? {
                  content: [
                    {
                      token: token.text,
                      logprob: logprobs[position],
                      bytes: [...Buffer.from(token.text)],
                      top_logprobs: [],
                    },
                  ],
                }
              : null,
            finish_reason: last ? (calls.length > 0 ? 'tool_calls' : 'stop') : null,
            ...(last ? { stop_reason: null } : {}),
            token_ids: request.return_token_ids ? [token.id] : null,
          },
        ],
      });
    });
    if (request.stream_options?.include_usage) {
      const usage = {
        prompt_tokens: promptIds.length,
        total_tokens: promptIds.length + generated.length,
        completion_tokens: generated.length,
      };
      send({ ...head, choices: [], usage });
    }
    res.end('data: [DONE]\n\n');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(error) } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
