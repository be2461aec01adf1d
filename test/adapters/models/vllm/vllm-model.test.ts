import { afterEach, describe, expect, it } from 'vitest';
import { createVllmProvider, type VllmProviderOptions } from '../../../../adapters/models/vllm/vllm-provider.js';
import { ModelError } from '../../../../src/errors.js';
import { addTokenData } from '../../../../src/models/add-token-data.js';
import type { Message, ToolDefinition } from '../../../../src/models/conversation.js';
import type { ModelPart, ModelProvider, TokenData } from '../../../../src/models/model.js';
import { decode, encode } from '../../../support/fake-vllm/fake-tokenizer.js';
import {
  type FakeCompletion,
  type FakeVllmOptions,
  type FakeVllmServer,
  startFakeVllmServer,
} from '../../../support/fake-vllm/fake-vllm-server.js';
import { unusedPort } from '../../../support/unused-port.js';
import { assistantFrom, collectFailure, collectParts } from '../common/collect-parts.js';

const tools: ToolDefinition[] = [
  {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression.',
    inputSchema: { type: 'object', properties: { expression: { type: 'string' } } },
  },
];

const CALL = (expression: string) =>
  `<tool_call>\n{"name": "calculator", "arguments": {"expression": "${expression}"}}\n</tool_call>`;

/** Turn by turn, what the fake model writes: it thinks, calls the calculator twice, then answers. */
const SCRIPT: FakeCompletion[] = [
  { text: `<think>\nI add first.\n</think>\n\nLet me compute.\n${CALL('17 + 25')}` },
  { text: `<think>\nThen I double it.\n</think>\n\n${CALL('42 * 2')}` },
  { text: '<think>\nDone.\n</think>\n\nThe answer is 84.' },
];

let fake: FakeVllmServer | undefined;

async function start(options: Partial<FakeVllmOptions> = {}, providerOptions: Partial<VllmProviderOptions> = {}) {
  fake = await startFakeVllmServer({
    policy: ({ turn }) => SCRIPT[turn - 1] ?? { text: 'No more.' },
    ...options,
  });
  const provider = createVllmProvider({ baseUrl: fake.url, maxRetries: 0, ...providerOptions });
  return { fake, provider };
}

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A conversation the way an episode keeps it: one array the turns and tool results are appended to. */
function conversation(): Message[] {
  return [{ role: 'user', content: [{ type: 'text', text: 'What is (17 + 25) * 2?' }] }];
}

/** Plays one turn on `messages` as the episode would, appending the assistant message; returns its parts. */
async function turn(provider: ModelProvider, messages: Message[], sampling = {}, model = 'Qwen/Qwen3-8B') {
  const parts = await collectParts(
    provider.create(model).stream({ messages, tools, sampling, signal: new AbortController().signal }),
  );
  messages.push(assistantFrom(parts));
  return parts;
}

/** Answers every call of the last assistant message with `output`. */
function answerCalls(messages: Message[], output: string): void {
  const last = messages.at(-1);
  if (last?.role !== 'assistant') throw new Error('the last message is not the model’s');
  for (const call of last.toolCalls) {
    messages.push({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text: output }],
      isError: false,
    });
  }
}

/** The turn's token data, as the episode adds up its parts. */
function tokenDataOf(parts: readonly ModelPart[]): TokenData {
  let sum: TokenData | undefined;
  for (const part of parts) if (part.type === 'token-data') sum = addTokenData(sum, part.data);
  if (sum === undefined) throw new Error('the turn carried no token data');
  return sum;
}

describe('the vllm provider, turn 1', () => {
  it('renders the prompt with /tokenize and generates on /v1/completions from its ids, streaming what the model wrote', async () => {
    const { fake, provider } = await start();
    const messages = conversation();
    const parts = await turn(provider, messages, {
      temperature: 0.6,
      top_p: 0.95,
      max_tokens: 200,
      seed: 7,
      extra_body: { chat_template_kwargs: { enable_thinking: true }, top_k: 20 },
    });

    const tokenize = fake.requests.filter((request) => request.path === '/tokenize').map((request) => request.body);
    expect(tokenize).toContainEqual({
      model: 'Qwen/Qwen3-8B',
      messages: [{ role: 'user', content: 'What is (17 + 25) * 2?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'calculator',
            description: 'Evaluates an arithmetic expression.',
            parameters: { type: 'object', properties: { expression: { type: 'string' } } },
          },
        },
      ],
      add_generation_prompt: true,
      add_special_tokens: false,
      return_token_strs: true,
      chat_template_kwargs: { enable_thinking: true },
    });
    const [generation] = fake.generations;
    expect(generation!.body).toEqual({
      model: 'Qwen/Qwen3-8B',
      prompt: generation!.promptIds,
      stream: true,
      stream_options: { include_usage: true },
      return_token_ids: true,
      logprobs: 0,
      temperature: 0.6,
      top_p: 0.95,
      max_tokens: 200,
      seed: 7,
      top_k: 20,
    });
    expect(decode(generation!.promptIds)).toMatch(
      /<\|im_start\|>user\nWhat is \(17 \+ 25\) \* 2\?<\|im_end\|>\n<\|im_start\|>assistant\n$/,
    );

    expect(assistantFrom(parts)).toMatchObject({
      content: 'Let me compute.',
      reasoning: [{ text: 'I add first.' }],
      toolCalls: [{ name: 'calculator', arguments: '{"expression": "17 + 25"}' }],
    });
    expect(parts.filter((part) => part.type === 'tool-call-delta').length).toBeGreaterThan(1);
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'tool_calls', rawReason: 'stop' });
    expect(parts).toContainEqual({
      type: 'usage',
      usage: { inputTokens: generation!.promptIds.length, outputTokens: generation!.completionIds.length },
    });
  });

  it('keeps exactly the ids and logprobs the server sampled, which the chunks carried piece by piece', async () => {
    const { fake, provider } = await start();
    const data = tokenDataOf(await turn(provider, conversation()));
    const [generation] = fake.generations;
    expect(generation!.chunkTokenIds.length).toBeGreaterThan(5);
    expect(generation!.chunkTokenIds.flat()).toEqual(generation!.completionIds);
    expect(data).toMatchObject({
      promptTokenIds: generation!.promptIds,
      tokenIds: generation!.completionIds,
      logprobs: generation!.logprobs,
    });
    expect(data.newSequence).toBeUndefined();
    // The sampled split is not the canonical one: rendering the text again would not give these ids.
    expect(encode(decode(generation!.completionIds))).not.toEqual(generation!.completionIds);
  });

  it("says what rendered the ids: the server's model, a fingerprint of its template, the kwargs and the parsers", async () => {
    const { provider } = await start();
    const data = tokenDataOf(await turn(provider, conversation(), { extra_body: { chat_template_kwargs: { x: 1 } } }));
    expect(data.renderer).toEqual({
      model: 'Qwen/Qwen3-8B',
      templateFingerprint: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      chatTemplateKwargs: { x: 1 },
      reasoningParser: 'qwen3',
      toolParser: 'hermes',
    });
  });

  it('fingerprints another template differently', async () => {
    const { provider } = await start();
    const plain = tokenDataOf(await turn(provider, conversation()));
    const closed = tokenDataOf(
      await turn(provider, conversation(), { extra_body: { chat_template_kwargs: { enable_thinking: false } } }),
    );
    expect(closed.renderer!.templateFingerprint).not.toBe(plain.renderer!.templateFingerprint);
  });

  it('sends no model name for a bare `vllm`, so the server uses the one it serves, and records its name', async () => {
    const { fake, provider } = await start();
    expect(provider.create('').id).toBe('vllm');
    const data = tokenDataOf(await turn(provider, conversation(), {}, ''));
    expect(fake.generations[0]!.body).not.toHaveProperty('model');
    expect(data.renderer!.model).toBe('Qwen/Qwen3-8B');
  });

  it('reads reasoning that the generation prompt opened', async () => {
    const { provider } = await start(
      { policy: () => ({ text: 'Nothing to compute.\n</think>\n\nFour.' }) },
      { chatTemplateKwargs: { open_thinking: true } },
    );
    expect(assistantFrom(await turn(provider, conversation()))).toMatchObject({
      content: 'Four.',
      reasoning: [{ text: 'Nothing to compute.' }],
    });
  });
});

describe('the vllm provider, later turns', () => {
  it('carries the ids: each prompt is the last prompt, the completion as sampled, then the tool results and the next generation prompt', async () => {
    const { fake, provider } = await start();
    const messages = conversation();
    await turn(provider, messages);
    answerCalls(messages, '42');
    const before = fake.count('/tokenize');
    const second = tokenDataOf(await turn(provider, messages));
    expect(fake.count('/tokenize') - before).toBe(1);
    answerCalls(messages, '84');
    const third = tokenDataOf(await turn(provider, messages));

    const [one, two, three] = fake.generations;
    expect(two!.promptIds.slice(0, one!.promptIds.length + one!.completionIds.length)).toEqual([
      ...one!.promptIds,
      ...one!.completionIds,
    ]);
    expect(decode(two!.promptIds.slice(one!.promptIds.length + one!.completionIds.length))).toBe(
      '\n<|im_start|>user\n<tool_response>\n42\n</tool_response><|im_end|>\n<|im_start|>assistant\n',
    );
    expect(three!.promptIds.slice(0, two!.promptIds.length + two!.completionIds.length)).toEqual([
      ...two!.promptIds,
      ...two!.completionIds,
    ]);
    expect(second).toMatchObject({ promptTokenIds: two!.promptIds, tokenIds: two!.completionIds });
    expect(second.newSequence).toBeUndefined();
    expect(third.newSequence).toBeUndefined();
    expect(messages.at(-1)).toMatchObject({ role: 'assistant', content: 'The answer is 84.' });
  });

  it('carries a user message after an answer (chat mode) the same way', async () => {
    const { fake, provider } = await start({ policy: ({ turn }) => ({ text: `Answer ${turn}.` }) });
    const messages = conversation();
    await turn(provider, messages);
    messages.push({ role: 'user', content: [{ type: 'text', text: 'And then?' }] });
    await turn(provider, messages);
    const [one, two] = fake.generations;
    expect(decode(two!.promptIds)).toBe(
      `${decode([...one!.promptIds, ...one!.completionIds])}\n<|im_start|>user\nAnd then?<|im_end|>\n<|im_start|>assistant\n`,
    );
  });

  it('starts a new sequence from a fresh render after a completion cut by max_tokens, and says so', async () => {
    const { fake, provider } = await start();
    const messages = conversation();
    await turn(provider, messages, { max_tokens: 30 });
    expect(fake.generations[0]!.finishReason).toBe('length');
    answerCalls(messages, '42');
    const data = tokenDataOf(await turn(provider, messages));
    expect(data.newSequence).toEqual({ reason: 'truncated' });
    const [one, two] = fake.generations;
    expect(two!.promptIds.slice(0, one!.promptIds.length + one!.completionIds.length)).not.toEqual([
      ...one!.promptIds,
      ...one!.completionIds,
    ]);
    expect(data.promptTokenIds).toEqual(two!.promptIds);
  });

  it('starts a new sequence when the server answered without ids', async () => {
    const { provider } = await start({ omitTokenIds: true });
    const messages = conversation();
    const first = tokenDataOf(await turn(provider, messages));
    expect(first.tokenIds).toBeUndefined();
    answerCalls(messages, '42');
    expect(tokenDataOf(await turn(provider, messages)).newSequence).toEqual({ reason: 'no_token_ids' });
  });

  it('starts a new sequence when a stop string ended the completion rather than the end-of-turn token', async () => {
    const { provider } = await start({ policy: () => ({ text: CALL('1 + 1'), stopString: '\n\n' }) });
    const messages = conversation();
    await turn(provider, messages);
    answerCalls(messages, '2');
    expect(tokenDataOf(await turn(provider, messages)).newSequence).toEqual({ reason: 'no_end_of_turn' });
  });

  it('renders afresh, with the arguments that ran, after a person edited a call', async () => {
    const { fake, provider } = await start();
    const messages = conversation();
    await turn(provider, messages);
    answerCalls(messages, '43');
    const tool = messages.at(-1) as Extract<Message, { role: 'tool' }>;
    tool.editedArguments = { expression: '17 + 26' };
    const data = tokenDataOf(await turn(provider, messages));
    expect(data.newSequence).toEqual({ reason: 'approval_edit' });
    expect(decode(fake.generations[1]!.promptIds)).toContain('"arguments": {"expression": "17 + 26"}');
  });

  it('renders afresh when the conversation is not the one it sampled', async () => {
    const { provider } = await start();
    const messages = conversation();
    await turn(provider, messages);
    const last = messages.at(-1) as Extract<Message, { role: 'assistant' }>;
    last.content = 'Something the model never wrote.';
    answerCalls(messages, '42');
    expect(tokenDataOf(await turn(provider, messages)).newSequence).toEqual({ reason: 'conversation_changed' });
  });
});

describe('the vllm provider, failures', () => {
  it("ends with model_context_exceeded before sending a prompt that would not fit the model's context", async () => {
    const { fake, provider } = await start({ maxModelLen: 40 });
    const { error } = await collectFailure(
      provider.create('Qwen/Qwen3-8B').stream({
        messages: conversation(),
        tools,
        sampling: {},
        signal: new AbortController().signal,
      }),
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_context_exceeded' });
    expect((error as Error).message).toMatch(/max_model_len/);
    expect(fake.count('/v1/completions')).toBe(0);
  });

  it('refuses chat_template_kwargs that are not an object, and extra_body keys it sets itself, before sending', async () => {
    const { fake, provider } = await start();
    for (const [extra, said] of [
      [{ chat_template_kwargs: 'enable_thinking' }, /chat_template_kwargs must be a JSON object/],
      [{ prompt: [1, 2] }, /sets "prompt", which the bridge sets itself/],
    ] as const) {
      const { error } = await collectFailure(
        provider.create('Qwen/Qwen3-8B').stream({
          messages: conversation(),
          tools,
          sampling: { extra_body: extra },
          signal: new AbortController().signal,
        }),
      );
      expect(error).toMatchObject({ code: 'model_bad_request', message: expect.stringMatching(said) });
    }
    expect(fake.count('/v1/completions')).toBe(0);
  });

  it('gives the turn only the tokens the context has left', async () => {
    const { fake, provider } = await start({ maxModelLen: 600 });
    await turn(provider, conversation(), { max_tokens: 100_000 });
    const [generation] = fake.generations;
    expect(generation!.body.max_tokens).toBe(600 - generation!.promptIds.length);
  });

  it("reads the server's own context refusal as model_context_exceeded", async () => {
    const { fake, provider } = await start();
    fake.failNext(
      '/v1/completions',
      400,
      "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
    );
    const { error } = await collectFailure(
      provider
        .create('Qwen/Qwen3-8B')
        .stream({ messages: conversation(), tools, sampling: {}, signal: AbortSignal.timeout(20_000) }),
    );
    expect(error).toMatchObject({ code: 'model_context_exceeded' });
  });

  it('reports a server that is down as model_unavailable', async () => {
    const provider = createVllmProvider({ baseUrl: `http://127.0.0.1:${await unusedPort()}`, maxRetries: 0 });
    const { error } = await collectFailure(
      provider
        .create('m')
        .stream({ messages: conversation(), tools, sampling: {}, signal: new AbortController().signal }),
    );
    expect(error).toMatchObject({ code: 'model_unavailable' });
    expect((error as Error).message).toMatch(/vLLM server/);
  });

  it('sends the key and names VLLM_API_KEY when the server refuses it', async () => {
    const { provider } = await start({ apiKey: 'right-key' }, { apiKey: 'wrong-key' });
    const { error } = await collectFailure(
      provider
        .create('Qwen/Qwen3-8B')
        .stream({ messages: conversation(), tools, sampling: {}, signal: new AbortController().signal }),
    );
    expect(error).toMatchObject({ code: 'model_auth' });
    expect((error as Error).message).toMatch(/VLLM_API_KEY/);
  });

  it('reports a stream that breaks off as model_stream_interrupted, and an error frame by its type', async () => {
    const { provider } = await start({
      policy: ({ seed }) => ({
        text: 'A long answer.',
        ...(seed === 1 ? { cutAfterTokens: 4 } : { errorAfterTokens: 4 }),
      }),
    });
    const stream = (seed: number) =>
      provider.create('Qwen/Qwen3-8B').stream({
        messages: conversation(),
        tools,
        sampling: { seed },
        signal: new AbortController().signal,
      });
    const cut = await collectFailure(stream(1));
    expect(cut.error).toMatchObject({ code: 'model_stream_interrupted' });
    expect(cut.parts.some((part) => part.type === 'text-delta')).toBe(true);
    const failed = await collectFailure(stream(2));
    expect(failed.error).toMatchObject({ code: 'model_error' });
    expect((failed.error as Error).message).toContain('The engine failed while generating.');
  });

  it('stops generating when cancelled mid-stream, and throws the abort reason', async () => {
    const { fake, provider } = await start({
      policy: () => ({ text: 'A long answer that never ends.', hangAfterTokens: 4 }),
    });
    const controller = new AbortController();
    const stream = provider
      .create('Qwen/Qwen3-8B')
      .stream({ messages: conversation(), tools, sampling: {}, signal: controller.signal });
    const parts: ModelPart[] = [];
    const reason = new Error('cancelled by the test');
    await expect(
      (async () => {
        for await (const part of stream) {
          parts.push(part);
          if (part.type === 'text-delta') controller.abort(reason);
        }
      })(),
    ).rejects.toBe(reason);
    await fake.hungStreamClosed();
    expect(parts.some((part) => part.type === 'text-delta')).toBe(true);
  });
});
