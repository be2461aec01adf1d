import { createHash } from 'node:crypto';
import type { TokenizeAnswer, TokenizeChatBody, VllmClient } from './vllm-client.js';
import type { VllmChatMessage, VllmTool } from './vllm-message-converter.js';

/** Ids the server rendered, with what the next generation needs to know of them. */
export interface RenderedIds {
  ids: number[];
  /** The model's context length, as `/tokenize` reported it. */
  maxModelLen: number;
  /** The generation prompt left a reasoning block open (its last tokens open `<think>` and do not close it). */
  opensReasoning: boolean;
}

/** What a render is for: the model, the tools and the template's kwargs of one request. */
export interface RenderTarget {
  /** Absent: the model the server serves. */
  model: string | undefined;
  tools: VllmTool[];
  /** Tells one set of tools and kwargs from another, for the caches. */
  key: string;
  kwargs: Record<string, unknown>;
}

/**
 * A fixed assistant turn before the messages of a bridge (see {@link TemplateRenderer.bridge}): one
 * tool call, so that tool results may follow it in any template; empty reasoning, so templates that
 * render reasoning by position (GLM's) render it the same whatever follows. Its id is nine letters,
 * the shape Mistral's templates insist on.
 */
const DUMMY: VllmChatMessage = {
  role: 'assistant',
  content: '',
  reasoning_content: '',
  tool_calls: [{ id: 'runbridge', type: 'function', function: { name: 'runbridge', arguments: '{}' } }],
};

/** The most tokens a template may put after an assistant turn's end-of-turn token (Qwen's is one newline). */
const MAX_SEPARATOR_TOKENS = 8;

/**
 * A conversation that exercises the template — a system prompt, tools, reasoning, a call and its
 * result, an answer, a second question — whose ids are hashed into the fingerprint of the server's
 * tokenizer and template.
 */
const PROBE: { messages: VllmChatMessage[]; tools: VllmTool[] } = {
  messages: [
    { role: 'system', content: 'You are the runbridge template probe.' },
    { role: 'user', content: 'What is 2 + 2? Use the tool.' },
    {
      role: 'assistant',
      content: 'Adding.',
      reasoning_content: 'I should call add.',
      tool_calls: [{ id: 'probecall', type: 'function', function: { name: 'add', arguments: '{"a": 2, "b": 2}' } }],
    },
    { role: 'tool', tool_call_id: 'probecall', content: '4' },
    { role: 'assistant', content: 'It is 4.' },
    { role: 'user', content: 'Thanks! And 3 + 3?' },
  ],
  tools: [
    {
      type: 'function',
      function: {
        name: 'add',
        description: 'Adds two numbers.',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } },
      },
    },
  ],
};

/** How many tool/kwargs sets the caches keep: one per environment a server's runs use, and then some. */
const CACHE_ENTRIES = 64;

/**
 * Renders conversations into prompt ids with the server's own tokenizer and chat template
 * (`POST /tokenize`), for one provider: whole conversations, the bridge from a finished turn to the
 * next, and the template's fingerprint. What does not change — the ids of the fixed dummy turn and the
 * fingerprint, per model, tools and kwargs — is asked once and kept.
 */
export class TemplateRenderer {
  readonly #client: VllmClient;
  readonly #dummies = new Map<string, Promise<number[]>>();
  readonly #fingerprints = new Map<string, Promise<string>>();
  /**
   * Whether the generation prompt opens a reasoning block, per target, as the last render saw it: the
   * generation prompt is the template's and the kwargs', the same every turn, so a bridge need not ask
   * for every token's text again (a few hundred strings a turn).
   */
  readonly #opens = new Map<string, boolean>();

  constructor(client: VllmClient) {
    this.#client = client;
  }

  /**
   * The whole conversation, ending with the generation prompt. Also asks, in parallel, for what a
   * later bridge and the record need if not asked before, so later turns cost one call each.
   */
  async render(messages: VllmChatMessage[], target: RenderTarget, signal: AbortSignal): Promise<RenderedIds> {
    const [answer] = await Promise.all([
      this.#tokenize({ messages, add_generation_prompt: true, return_token_strs: true }, target, signal),
      this.#dummy(target, signal),
      this.fingerprint(target, signal),
    ]);
    const opens = opensReasoning(answer.token_strs);
    if (this.#opens.size >= CACHE_ENTRIES) this.#opens.clear();
    this.#opens.set(target.key, opens);
    return rendered(answer, opens);
  }

  /**
   * The ids that follow a finished assistant turn whose last sampled id is `lastId`: the separator
   * the template puts after that turn, `messages` (tool results, a person's message), and the next
   * generation prompt. Computed as `[dummy, …messages]` rendered minus `[dummy]` rendered, so the
   * turn itself is never rendered again; the separator is what `[dummy]` has after its own copy of
   * `lastId`. Undefined when `lastId` is not the token that ends an assistant turn in this template
   * (a completion that stopped otherwise), or when the template does not render `[dummy]` as the
   * start of `[dummy, …messages]`: the ids cannot be carried then.
   */
  async bridge(
    messages: VllmChatMessage[],
    lastId: number,
    target: RenderTarget,
    signal: AbortSignal,
  ): Promise<RenderedIds | undefined> {
    const dummy = await this.#dummy(target, signal);
    const at = dummy.lastIndexOf(lastId);
    const separator = dummy.length - 1 - at;
    if (at < 0 || separator > MAX_SEPARATOR_TOKENS) return undefined;
    const known = this.#opens.get(target.key);
    const answer = await this.#tokenize(
      { messages: [DUMMY, ...messages], add_generation_prompt: true, return_token_strs: known === undefined },
      target,
      signal,
    );
    const full = answer.tokens;
    if (full.length < dummy.length || dummy.some((id, index) => full[index] !== id)) return undefined;
    let ids = full.slice(dummy.length - separator);
    // A template whose end-of-turn token also opens the next turn (GLM's `<|observation|>`) has it once.
    if (ids[0] === lastId) ids = ids.slice(1);
    return { ...rendered(answer, known ?? opensReasoning(answer.token_strs)), ids };
  }

  /** `sha256:` and the hex SHA-256 of the ids of a fixed probe conversation, rendered with `target`'s model and kwargs. */
  fingerprint(target: RenderTarget, signal: AbortSignal): Promise<string> {
    const key = JSON.stringify([target.model ?? null, target.kwargs]);
    const made = remember(this.#fingerprints, key, async () => {
      const answer = await this.#tokenize(
        { messages: PROBE.messages, add_generation_prompt: true, return_token_strs: false },
        { ...target, tools: PROBE.tools },
        undefined,
      );
      return `sha256:${createHash('sha256').update(JSON.stringify(answer.tokens)).digest('hex')}`;
    });
    return untilAborted(made, signal);
  }

  #dummy(target: RenderTarget, signal: AbortSignal): Promise<number[]> {
    const made = remember(this.#dummies, target.key, async () => {
      const answer = await this.#tokenize(
        { messages: [DUMMY], add_generation_prompt: false, return_token_strs: false },
        target,
        undefined,
      );
      return answer.tokens;
    });
    return untilAborted(made, signal);
  }

  /** One `/tokenize` call; one whose answer is kept for others runs without the caller's signal. */
  #tokenize(
    body: Pick<TokenizeChatBody, 'messages' | 'add_generation_prompt'> & { return_token_strs: boolean },
    target: Pick<RenderTarget, 'model' | 'tools' | 'kwargs'>,
    signal: AbortSignal | undefined,
  ): Promise<TokenizeAnswer> {
    return this.#client.tokenize(
      {
        ...(target.model === undefined ? {} : { model: target.model }),
        messages: body.messages,
        ...(target.tools.length === 0 ? {} : { tools: target.tools }),
        add_generation_prompt: body.add_generation_prompt,
        add_special_tokens: false,
        ...(body.return_token_strs ? { return_token_strs: true } : {}),
        ...(Object.keys(target.kwargs).length === 0 ? {} : { chat_template_kwargs: target.kwargs }),
      },
      signal,
    );
  }
}

function rendered(answer: TokenizeAnswer, opens: boolean): RenderedIds {
  return { ids: answer.tokens, maxModelLen: answer.max_model_len, opensReasoning: opens };
}

/** Whether the last few tokens open a `<think>` block they do not close: the generation prompt began the reasoning. */
function opensReasoning(tokenTexts: readonly string[] | null | undefined): boolean {
  if (!tokenTexts) return false;
  const tail = tokenTexts.slice(-MAX_SEPARATOR_TOKENS).join('');
  return tail.lastIndexOf('<think>') > tail.lastIndexOf('</think>');
}

/**
 * The value kept under `key`, made by `make` the first time; a failed one is forgotten, so the next
 * call asks again. The oldest entry goes once there are {@link CACHE_ENTRIES}.
 */
function remember<T>(cache: Map<string, Promise<T>>, key: string, make: () => Promise<T>): Promise<T> {
  const kept = cache.get(key);
  if (kept !== undefined) return kept;
  const made = make();
  cache.set(key, made);
  if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  made.catch(() => {
    if (cache.get(key) === made) cache.delete(key);
  });
  return made;
}

/** `promise`, or the abort reason of `signal` if it aborts first (the promise itself goes on, for others who wait on it). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
