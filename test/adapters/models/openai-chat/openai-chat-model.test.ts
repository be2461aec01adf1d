import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiChatProvider } from '../../../../adapters/models/openai-chat/openai-chat-provider.js';
import { addTokenData } from '../../../../src/models/add-token-data.js';
import type { Message, ToolDefinition } from '../../../../src/models/conversation.js';
import type { ModelProvider, ModelRequest, TokenData } from '../../../../src/models/model.js';
import { type FakeVendorServer, startFakeVendorServer } from '../../../support/fake-vendor-server.js';
import { collectFailure, collectParts } from '../common/collect-parts.js';

const ROUTE = 'POST /v1/chat/completions';

const tools: ToolDefinition[] = [
  {
    name: 'lookup',
    description: 'Find a book by title.',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { title: { type: 'string' } },
    },
  },
];
const messages: Message[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: [{ type: 'text', text: 'Find Dune.' }] },
];

let vendor: FakeVendorServer;
let provider: ModelProvider;

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { messages, tools, sampling: {}, signal: new AbortController().signal, ...overrides };
}

beforeEach(async () => {
  vendor = await startFakeVendorServer();
  provider = createOpenAiChatProvider({ apiKey: 'sk-test', baseUrl: `${vendor.url}/v1`, maxRetries: 2 });
});

afterEach(async () => {
  await vendor.close();
});

describe('the openai provider', () => {
  it('names its models provider:name and defaults to gpt-4.1-mini', () => {
    expect(provider.name).toBe('openai');
    expect(provider.defaultModel).toBe('gpt-4.1-mini');
    expect(provider.create('gpt-4.1').id).toBe('openai:gpt-4.1');
  });
});

describe('OpenAiChatModel against a Chat Completions server', () => {
  it('streams text parts and sends the converted conversation, tools and usage request', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/text.sse' });
    const parts = await collectParts(
      provider.create('gpt-4.1-mini').stream(request({ sampling: { temperature: 0, max_tokens: 64 } })),
    );

    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'text-delta', 'usage', 'finish']);
    const [body] = vendor.bodiesOf(ROUTE);
    expect(body).toEqual({
      model: 'gpt-4.1-mini',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Find Dune.' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'lookup',
            description: 'Find a book by title.',
            parameters: { type: 'object', properties: { title: { type: 'string' } } },
          },
        },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0,
      // A server at another base URL gets the key every compatible server knows.
      max_tokens: 64,
    });
    expect(vendor.requests[0]?.headers.authorization).toBe('Bearer sk-test');
  });

  it('uses max_completion_tokens when configured for OpenAI itself', async () => {
    const openai = createOpenAiChatProvider({
      apiKey: 'sk-test',
      baseUrl: `${vendor.url}/v1`,
      maxTokensParam: 'max_completion_tokens',
    });
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/text.sse' });
    await collectParts(openai.create('gpt-4.1-mini').stream(request({ sampling: { max_tokens: 64 } })));
    expect(vendor.bodiesOf(ROUTE)[0]).toMatchObject({ max_completion_tokens: 64 });
    expect(vendor.bodiesOf(ROUTE)[0]).not.toHaveProperty('max_tokens');
  });

  it('passes extra_body through verbatim and returns vLLM reasoning and token data', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/vllm-reasoning.sse' });
    const parts = await collectParts(
      provider
        .create('Qwen/Qwen3-8B')
        .stream(request({ sampling: { extra_body: { return_token_ids: true, logprobs: true, top_k: 20 } } })),
    );
    expect(vendor.bodiesOf(ROUTE)[0]).toMatchObject({
      model: 'Qwen/Qwen3-8B',
      return_token_ids: true,
      logprobs: true,
      top_k: 20,
    });
    expect(parts).toContainEqual({ type: 'reasoning', block: { text: 'Two plus two is four.' } });
    const tokenData = parts.flatMap((part) => (part.type === 'token-data' ? [part.data] : []));
    expect(tokenData.reduce<TokenData | undefined>(addTokenData, undefined)).toMatchObject({
      promptTokenIds: expect.any(Array),
      tokenIds: expect.any(Array),
    });
    expect(parts.at(-1)).toEqual({ type: 'finish', reason: 'stop', rawReason: 'stop' });
  });

  it('yields parallel tool calls assembled from interleaved deltas', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/parallel-tool-calls.sse' });
    const parts = await collectParts(provider.create('gpt-4.1-mini').stream(request()));
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { id: 'call_Qw1xT7aLJ3vN8d2PfGh5Rk0s', name: 'add', arguments: '{"a": 2, "b": 40}' } },
      {
        type: 'tool-call',
        call: { id: 'call_Zp4mB9cE6yU1oK3sW8tJ2nVa', name: 'lookup', arguments: '{"title": "Dune", "year": 1965}' },
      },
    ]);
  });

  it('yields a tool call with invalid JSON arguments as raw text', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/invalid-arguments.sse' });
    const parts = await collectParts(provider.create('gpt-4.1-mini').stream(request()));
    expect(parts).toContainEqual({
      type: 'tool-call',
      call: { id: 'call_Hn2kR8dQ5wX0bL7mC4vT9eYj', name: 'add', arguments: '{"a": 2, "b": ' },
    });
  });

  it('cancels the HTTP request when the caller stops reading early', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/text.sse', stopAfterFrames: 2, then: 'hang' });
    for await (const part of provider.create('gpt-4.1-mini').stream(request())) {
      if (part.type === 'text-delta') break;
    }
    await vendor.responseClosed(0);
  });

  it("leaves no abort listener on the caller's signal after a call", async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/text.sse' });
    const controller = new AbortController();
    const model = provider.create('gpt-4.1-mini');
    for (let turn = 0; turn < 3; turn += 1) await collectParts(model.stream(request({ signal: controller.signal })));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('OpenAiChatModel errors', () => {
  // Retries and the mapping every vendor shares: test/adapters/models/contract/.
  it('turns an error object inside the stream into a ModelError of its type', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-chat/error-midway.sse' });
    const { error, parts } = await collectFailure(provider.create('gpt-4.1-mini').stream(request()));
    expect(error).toMatchObject({ code: 'model_unavailable', details: { vendor_type: 'server_error' } });
    expect(parts).toEqual([{ type: 'text-delta', delta: 'Partial' }]);
  });
});
