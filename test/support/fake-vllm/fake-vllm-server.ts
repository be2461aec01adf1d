import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FloodReport, writeFlood } from '../flood-writer.js';
import { renderChat, type TemplateMessage, type TemplateTool } from './fake-chat-template.js';
import { decode, encode, logprobOf, sampleIds, TOKEN, tokenText } from './fake-tokenizer.js';
import { parseQwenOutput } from './parse-qwen-output.js';

/**
 * A loopback stand-in for a vLLM server, written from vLLM's public wire format: `POST /tokenize`
 * (chat and prompt forms, `{count, max_model_len, tokens, token_strs}`), `POST /detokenize`,
 * `GET /v1/models` (with `max_model_len`), `POST /v1/completions` with a token-id prompt, streaming
 * `return_token_ids` (`prompt_token_ids` on the first chunk's choice, each chunk's `token_ids`) and
 * `logprobs` (`token_logprobs`), and `POST /v1/chat/completions` (the server renders the messages
 * itself and parses reasoning and `<tool_call>`s) for the client that sends chat messages. Errors
 * come as vLLM sends them: `{"error": {message, type, param, code}}`.
 *
 * Its tokenizer is not reversible (`fake-tokenizer.ts`) and its template drops earlier turns'
 * reasoning and puts a newline after `<|im_end|>` (`fake-chat-template.ts`), as Qwen3's do; what the
 * model writes comes from a {@link FakePolicy}, the same for both endpoints.
 */

/** Token ids a chunk of a flood (`FakeCompletion.floodTokenIds`) carries. */
const FLOOD_IDS_PER_CHUNK = 64;

/** What the fake model writes in one turn. */
export interface FakeCompletion {
  /** The completion as text, without the end-of-turn token (which the model samples after it). */
  text: string;
  /** End at this stop string instead of the end-of-turn token (vLLM leaves the string out, and says it in `stop_reason`). */
  stopString?: string;
  /** Stream this many tokens, then hold the stream open until the client goes away. */
  hangAfterTokens?: number;
  /** Stream this many tokens, then break the connection off. */
  cutAfterTokens?: number;
  /** Stream this many tokens, then an error frame, as vLLM does when a generation fails midway. */
  errorAfterTokens?: number;
  /**
   * A hostile server: instead of the completion, stream this many token ids without any text (no
   * logprobs, no finish), then hold the stream open until the client goes away. See `FakeGeneration.flood`.
   */
  floodTokenIds?: number;
}

/** The prompt a turn is written for. */
export interface FakePrompt {
  ids: number[];
  text: string;
  /** How many assistant turns the prompt opens, its own generation prompt included: 1 for the first turn. */
  turn: number;
  /** The request's `seed`, 0 without one. */
  seed: number;
}

/** Decides each turn's completion from its prompt. */
export type FakePolicy = (prompt: FakePrompt) => FakeCompletion;

/** One generation the fake answered: what it was given and what it sampled. */
export interface FakeGeneration {
  endpoint: 'completions' | 'chat';
  body: Record<string, unknown>;
  promptIds: number[];
  completionIds: number[];
  logprobs: number[];
  /** The `token_ids` of each streamed chunk, in order (empty when the client did not ask for them). */
  chunkTokenIds: number[][];
  finishReason: 'stop' | 'length' | null;
  /** For a completion that was a flood of token ids, how it went, once the client closed it. */
  flood?: FloodReport;
}

/** A request the fake received. */
export interface FakeVllmRequest {
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
}

export interface FakeVllmOptions {
  policy: FakePolicy;
  /** The served model's name; `Qwen/Qwen3-8B` when absent. */
  model?: string;
  /** The context length; 4096 when absent. */
  maxModelLen?: number;
  /** The key clients must send as a bearer token; none when absent. */
  apiKey?: string;
  /** Answer as a vLLM too old for `return_token_ids`: never any token ids. */
  omitTokenIds?: boolean;
  /** Tokens per streamed chunk; 2 when absent. */
  tokensPerChunk?: number;
}

export interface FakeVllmServer {
  /** The server root, e.g. `http://127.0.0.1:41234` (the OpenAI base URL is this plus `/v1`). */
  readonly url: string;
  readonly model: string;
  /** The context length the server reports and enforces; {@link setMaxModelLen} changes it. */
  readonly maxModelLen: number;
  /** Serves with another context length from now on, as a server restarted with another `--max-model-len`. */
  setMaxModelLen(tokens: number): void;
  /** Every request, in order of arrival. */
  readonly requests: readonly FakeVllmRequest[];
  /** Every generation, in order. */
  readonly generations: readonly FakeGeneration[];
  /** Requests to `path` so far. */
  count(path: string): number;
  /** The next `times` requests to `path` are answered `status` with a vLLM error saying `message`. */
  failNext(path: string, status: number, message: string, times?: number): void;
  /** Resolves once a stream held open by `hangAfterTokens` has been closed by the client. */
  hungStreamClosed(): Promise<void>;
  close(): Promise<void>;
}

/** Starts the fake on a free loopback port. */
export async function startFakeVllmServer(options: FakeVllmOptions): Promise<FakeVllmServer> {
  const model = options.model ?? 'Qwen/Qwen3-8B';
  let maxModelLen = options.maxModelLen ?? 4096;
  const perChunk = options.tokensPerChunk ?? 2;
  const requests: FakeVllmRequest[] = [];
  const generations: FakeGeneration[] = [];
  const failures = new Map<string, Array<{ status: number; message: string }>>();
  let hungClosed: () => void = () => undefined;
  const hung = new Promise<void>((resolve) => {
    hungClosed = resolve;
  });

  const sendError = (res: ServerResponse, status: number, message: string) => {
    const type = status === 400 ? 'BadRequestError' : status === 404 ? 'NotFoundError' : 'InternalServerError';
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code: status } }));
  };
  const sendJson = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  function tokenize(body: Record<string, unknown>): number[] {
    if (Array.isArray(body.messages)) {
      const text = renderChat(body.messages as TemplateMessage[], {
        tools: body.tools as TemplateTool[] | undefined,
        addGenerationPrompt: body.add_generation_prompt !== false,
        kwargs: body.chat_template_kwargs as Record<string, unknown> | undefined,
      });
      return encode(text);
    }
    return encode(String(body.prompt ?? ''));
  }

  /** The completion the policy writes for `promptIds`, as ids, cut at `maxTokens`. */
  function generate(promptIds: number[], body: Record<string, unknown>, maxTokens: number) {
    const text = decode(promptIds);
    const seed = typeof body.seed === 'number' ? body.seed : 0;
    const turn = text.split('<|im_start|>assistant\n').length - 1;
    const completion = options.policy({ ids: promptIds, text, turn, seed });
    const sampled = [...sampleIds(completion.text), ...(completion.stopString === undefined ? [TOKEN.imEnd] : [])];
    const ids = sampled.slice(0, maxTokens);
    const finishReason: 'stop' | 'length' = ids.length < sampled.length ? 'length' : 'stop';
    const logprobs = ids.map((id, position) => logprobOf(id, position, seed));
    return { completion, ids, logprobs, finishReason };
  }

  /**
   * Streams `generation`'s ids in chunks of `perChunk` (each chunk's body from `chunkOf`), recording the
   * ids each carried when `withIds`; then the usage chunk when asked for, and `[DONE]`.
   */
  async function streamChunks(
    req: IncomingMessage,
    res: ServerResponse,
    generation: FakeGeneration,
    stream: {
      completion: FakeCompletion;
      head: Record<string, unknown>;
      withIds: boolean;
      body: Record<string, unknown>;
    },
    chunkOf: (ids: number[], from: number, last: boolean) => Record<string, unknown>,
  ): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const ids = generation.completionIds;
    for (let from = 0; from < ids.length; from += perChunk) {
      const { hangAfterTokens, cutAfterTokens, errorAfterTokens } = stream.completion;
      if (hangAfterTokens !== undefined && from >= hangAfterTokens) {
        if (!req.destroyed) await once(res, 'close');
        hungClosed();
        return;
      }
      if (cutAfterTokens !== undefined && from >= cutAfterTokens) {
        res.destroy();
        return;
      }
      if (errorAfterTokens !== undefined && from >= errorAfterTokens) {
        const error = { message: 'The engine failed while generating.', type: 'InternalServerError', code: 500 };
        res.end(`data: ${JSON.stringify({ error })}\n\ndata: [DONE]\n\n`);
        return;
      }
      const slice = ids.slice(from, from + perChunk);
      if (stream.withIds) generation.chunkTokenIds.push(slice);
      res.write(
        `data: ${JSON.stringify({ ...stream.head, ...chunkOf(slice, from, from + perChunk >= ids.length) })}\n\n`,
      );
      // Lets the client read each chunk as it comes, as a real server's pace would.
      await new Promise((resolve) => setImmediate(resolve));
    }
    if ((stream.body.stream_options as { include_usage?: boolean } | undefined)?.include_usage) {
      const usage = {
        prompt_tokens: generation.promptIds.length,
        completion_tokens: ids.length,
        total_tokens: generation.promptIds.length + ids.length,
      };
      res.write(`data: ${JSON.stringify({ ...stream.head, choices: [], usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  async function completions(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) {
    if (!Array.isArray(body.prompt)) return sendError(res, 400, 'This fake takes token-id prompts only.');
    if (body.stream !== true) return sendError(res, 400, 'This fake streams only: send stream: true.');
    const promptIds = body.prompt as number[];
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : 16;
    if (promptIds.length + maxTokens > maxModelLen) {
      return sendError(
        res,
        400,
        `This model's maximum context length is ${maxModelLen} tokens. However, you requested ` +
          `${promptIds.length + maxTokens} tokens (${promptIds.length} in the messages, ${maxTokens} in the completion). ` +
          'Please reduce the length of the messages or completion.',
      );
    }
    const { completion, ids, logprobs, finishReason } = generate(promptIds, body, maxTokens);
    const withIds = body.return_token_ids === true && !options.omitTokenIds;
    const withLogprobs = typeof body.logprobs === 'number';
    const skipSpecial = body.skip_special_tokens !== false;
    const generation: FakeGeneration = {
      endpoint: 'completions',
      body,
      promptIds,
      completionIds: ids,
      logprobs,
      chunkTokenIds: [],
      finishReason: completion.hangAfterTokens === undefined ? finishReason : null,
    };
    generations.push(generation);
    const head = { id: `cmpl-fake${generations.length}`, object: 'text_completion', created: 1_764_000_000, model };
    if (completion.floodTokenIds !== undefined) {
      generation.finishReason = null;
      return floodIds(res, generation, head, completion.floodTokenIds);
    }
    const stream = { completion, head, withIds, body };
    await streamChunks(req, res, generation, stream, (slice, from, last) => ({
      choices: [
        {
          index: 0,
          text: decode(slice, skipSpecial),
          logprobs: withLogprobs
            ? {
                text_offset: slice.map(() => 0),
                token_logprobs: logprobs.slice(from, from + slice.length),
                tokens: slice.map(tokenText),
                top_logprobs: slice.map((id, offset) => ({ [tokenText(id)]: logprobs[from + offset] })),
              }
            : null,
          finish_reason: last ? finishReason : null,
          stop_reason: last && finishReason === 'stop' ? (completion.stopString ?? null) : null,
          ...(withIds ? { token_ids: slice, ...(from === 0 ? { prompt_token_ids: promptIds } : {}) } : {}),
        },
      ],
      usage: null,
    }));
  }

  /**
   * Streams `count` token ids, {@link FLOOD_IDS_PER_CHUNK} a chunk and no text, as fast as the client
   * reads them (`writeFlood`: the next chunk only once the socket took the last), then holds the
   * stream open until the client goes away; `generation.flood` says how far it got, once it has.
   */
  async function floodIds(
    res: ServerResponse,
    generation: FakeGeneration,
    head: Record<string, unknown>,
    count: number,
  ): Promise<void> {
    const ids = new Array<number>(FLOOD_IDS_PER_CHUNK).fill(encode('x')[0]!);
    const chunkOf = (extra: Record<string, unknown>) => {
      const choice = { index: 0, text: '', logprobs: null, finish_reason: null, token_ids: ids, ...extra };
      return `data: ${JSON.stringify({ ...head, choices: [choice], usage: null })}\n\n`;
    };
    const opening = chunkOf({ prompt_token_ids: generation.promptIds });
    const piece = chunkOf({});
    const all = opening.length + (Math.ceil(count / FLOOD_IDS_PER_CHUNK) - 1) * piece.length;
    const closed = once(res, 'close').then(() => undefined);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    // Held once every chunk is sent, with room for one more: the stream never ends by itself.
    const hold = { after: all, until: closed, reached: () => undefined };
    generation.flood = await writeFlood(res, { head: opening, piece, bytes: all + piece.length, hold });
  }

  async function chatCompletions(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>) {
    const promptIds = tokenize({ ...body, add_generation_prompt: true });
    const maxTokens =
      typeof body.max_tokens === 'number' ? body.max_tokens : Math.max(1, maxModelLen - promptIds.length);
    const { completion, ids, logprobs, finishReason } = generate(promptIds, body, maxTokens);
    const text = decode(ids, true);
    const { spans, calls } = parseQwenOutput(text);
    const withIds = body.return_token_ids === true && !options.omitTokenIds;
    const generation: FakeGeneration = {
      endpoint: 'chat',
      body,
      promptIds,
      completionIds: ids,
      logprobs,
      chunkTokenIds: [],
      finishReason,
    };
    generations.push(generation);
    const head = { id: `chatcmpl-fake${generations.length}`, object: 'chat.completion.chunk', created: 1, model };
    // Each token's piece of the reasoning, the answer or a call's arguments goes in its own chunk's
    // delta, as vLLM's parsers stream them; a call is announced by the chunk its block starts in.
    const stream = { completion, head, withIds, body };
    let offset = 0;
    let announced = 0;
    await streamChunks(req, res, generation, stream, (slice, from, last) => {
      const start = offset;
      offset += decode(slice, true).length;
      const pieceOf = (kind: string, call = -1) =>
        spans
          .filter((span) => span.kind === kind && span.call === call && span.start < offset && span.end > start)
          .map((span) => text.slice(Math.max(start, span.start), Math.min(offset, span.end)))
          .join('');
      const delta: Record<string, unknown> = {};
      const reasoning = pieceOf('reasoning');
      if (reasoning !== '') delta.reasoning_content = reasoning;
      const content = pieceOf('content');
      if (content !== '') delta.content = content;
      const toolCalls: unknown[] = [];
      calls.forEach((call, index) => {
        if (call.start >= offset) return;
        if (index >= announced) {
          announced = index + 1;
          const id = `chatcmpl-tool-${generations.length}-${index}`;
          toolCalls.push({ index, id, type: 'function', function: { name: call.name, arguments: '' } });
        }
        const args = pieceOf('arguments', index);
        if (args !== '') toolCalls.push({ index, function: { arguments: args } });
      });
      if (toolCalls.length > 0) delta.tool_calls = toolCalls;
      return {
        ...(from === 0 && withIds ? { prompt_token_ids: promptIds } : {}),
        choices: [
          {
            index: 0,
            delta,
            logprobs:
              body.logprobs === true
                ? {
                    content: slice.map((id, position) => ({
                      token: tokenText(id),
                      logprob: logprobs[from + position],
                      bytes: [...Buffer.from(tokenText(id))],
                      top_logprobs: [],
                    })),
                  }
                : null,
            finish_reason: last ? (calls.length > 0 ? 'tool_calls' : finishReason) : null,
            ...(withIds ? { token_ids: slice } : {}),
          },
        ],
      };
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = (req.url ?? '/').split('?')[0]!;
    const text = Buffer.concat(chunks).toString('utf8');
    const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    requests.push({ method: req.method ?? 'GET', path, body });
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return sendError(res, 401, 'Unauthorized');
    }
    const failure = failures.get(path)?.shift();
    if (failure) return sendError(res, failure.status, failure.message);
    if (body?.model !== undefined && body.model !== model) {
      return sendError(res, 404, `The model \`${String(body.model)}\` does not exist.`);
    }
    const route = `${req.method} ${path}`;
    switch (route) {
      case 'GET /v1/models':
        return sendJson(res, {
          object: 'list',
          data: [{ id: model, object: 'model', created: 1, owned_by: 'vllm', root: model, max_model_len: maxModelLen }],
        });
      case 'POST /tokenize': {
        const tokens = tokenize(body ?? {});
        return sendJson(res, {
          count: tokens.length,
          max_model_len: maxModelLen,
          tokens,
          token_strs: body?.return_token_strs === true ? tokens.map(tokenText) : null,
        });
      }
      case 'POST /detokenize':
        return sendJson(res, { prompt: decode((body?.tokens as number[]) ?? []) });
      case 'POST /v1/completions':
        return completions(req, res, body ?? {});
      case 'POST /v1/chat/completions':
        return chatCompletions(req, res, body ?? {});
      default:
        return sendError(res, 404, `Not Found: ${route}`);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, String(error));
      else res.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    model,
    get maxModelLen() {
      return maxModelLen;
    },
    setMaxModelLen(tokens) {
      maxModelLen = tokens;
    },
    requests,
    generations,
    count: (path) => requests.filter((request) => request.path === path).length,
    failNext(path, status, message, times = 1) {
      failures.set(
        path,
        Array.from({ length: times }, () => ({ status, message })),
      );
    },
    hungStreamClosed: () => hung,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
