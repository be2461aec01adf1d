import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../../../adapters/models/anthropic/anthropic-provider.js';
import type { Message, ToolDefinition } from '../../../../src/models/conversation.js';
import type { ModelProvider, ModelRequest } from '../../../../src/models/model.js';
import { type FakeVendorServer, startFakeVendorServer } from '../../../support/fake-vendor-server.js';
import { assistantFrom, collectFailure, collectParts } from '../common/collect-parts.js';

const ROUTE = 'POST /v1/messages';
const MODEL = 'claude-sonnet-5-5';

const tools: ToolDefinition[] = [
  {
    name: 'lookup',
    description: 'Find a book by title.',
    inputSchema: {
      type: 'object',
      properties: { title: { type: 'string', title: 'Title' }, year: { type: 'integer' } },
      required: ['title'],
    },
  },
  { name: 'list_shelves', description: 'List the shelves.', inputSchema: { type: 'object', properties: {} } },
];
const opening: Message[] = [
  { role: 'system', content: 'You are a librarian.' },
  { role: 'user', content: [{ type: 'text', text: 'Find Dune and Solaris.' }] },
];

let vendor: FakeVendorServer;
let provider: ModelProvider;

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { messages: opening, tools, sampling: {}, signal: new AbortController().signal, ...overrides };
}

beforeEach(async () => {
  vendor = await startFakeVendorServer();
  provider = createAnthropicProvider({ apiKey: 'sk-ant-test', baseUrl: vendor.url, maxRetries: 2 });
});

afterEach(async () => {
  await vendor.close();
});

describe('the anthropic provider', () => {
  it('names its models provider:name and defaults to a Sonnet the SDK does not call deprecated', () => {
    expect(provider.name).toBe('anthropic');
    expect(provider.defaultModel).toBe('claude-sonnet-5-5');
    expect(provider.create('claude-opus-4-5').id).toBe('anthropic:claude-opus-4-5');
  });
});

describe('AnthropicModel against the Messages API', () => {
  it('streams text and sends system, messages, tools (title property intact) and max_tokens', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'anthropic/text.sse' });
    const parts = await collectParts(provider.create(MODEL).stream(request({ sampling: { max_tokens: 512 } })));

    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'usage', 'finish']);
    expect(vendor.bodiesOf(ROUTE)[0]).toEqual({
      model: MODEL,
      max_tokens: 512,
      system: 'You are a librarian.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Find Dune and Solaris.' }] }],
      tools: [
        {
          name: 'lookup',
          description: 'Find a book by title.',
          input_schema: {
            type: 'object',
            properties: { title: { type: 'string', title: 'Title' }, year: { type: 'integer' } },
            required: ['title'],
          },
        },
        { name: 'list_shelves', description: 'List the shelves.', input_schema: { type: 'object', properties: {} } },
      ],
      stream: true,
    });
  });

  it('sends the thinking block back with its signature on the next turn, with tool_use and tool_result blocks', async () => {
    vendor.reply(
      ROUTE,
      { kind: 'stream', fixture: 'anthropic/thinking-tool-use.sse' },
      { kind: 'stream', fixture: 'anthropic/text.sse' },
    );
    const model = provider.create(MODEL);
    const thinking = { thinking: { type: 'enabled', budget_tokens: 2048 } };
    const first = await collectParts(model.stream(request({ sampling: { max_tokens: 4096, extra_body: thinking } })));
    const assistant = assistantFrom(first);
    const results: Message[] = assistant.toolCalls.map((call) => ({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text: `result of ${call.name}` }],
      isError: false,
    }));
    await collectParts(
      model.stream(
        request({
          messages: [...opening, assistant, ...results],
          sampling: { max_tokens: 4096, extra_body: thinking },
        }),
      ),
    );

    const second = vendor.bodiesOf(ROUTE)[1] as {
      thinking: unknown;
      messages: Array<{ role: string; content: unknown }>;
    };
    expect(second.thinking).toEqual(thinking.thinking);
    expect(second.messages[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: 'The user wants two books. I will look both up at once.',
          signature:
            'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds2QPtlbJ2Hh0wHd6FZ6u1yMOEqM4eeY6Kd6YvbdsFjHLRaHW9eCAmTvBQ5q6zBmvzRIzyUgBkCT1ti9LqtWPAt18TYzqnCj5UhgB4T4=',
        },
        { type: 'text', text: 'Looking up both titles.' },
        {
          type: 'tool_use',
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          name: 'lookup',
          input: { title: 'Dune', year: 1965 },
        },
        { type: 'tool_use', id: 'toolu_01VmXb3kZq8R2nEoC6sYtW4p', name: 'lookup', input: { title: 'Solaris' } },
        { type: 'tool_use', id: 'toolu_01Pq7Lk2Mn4Bv8Cx1Zs5Dw9F', name: 'list_shelves', input: {} },
      ],
    });
    expect(second.messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', content: 'result of lookup' },
        { type: 'tool_result', tool_use_id: 'toolu_01VmXb3kZq8R2nEoC6sYtW4p', content: 'result of lookup' },
        { type: 'tool_result', tool_use_id: 'toolu_01Pq7Lk2Mn4Bv8Cx1Zs5Dw9F', content: 'result of list_shelves' },
      ],
    });
  });

  it('sends redacted thinking back as its opaque data', async () => {
    vendor.reply(
      ROUTE,
      { kind: 'stream', fixture: 'anthropic/redacted-thinking.sse' },
      { kind: 'stream', fixture: 'anthropic/text.sse' },
    );
    const model = provider.create(MODEL);
    const assistant = assistantFrom(await collectParts(model.stream(request())));
    await collectParts(
      model.stream(
        request({ messages: [...opening, assistant, { role: 'user', content: [{ type: 'text', text: 'Thanks.' }] }] }),
      ),
    );
    const second = vendor.bodiesOf(ROUTE)[1] as { messages: Array<{ content: Array<{ type: string }> }> };
    expect(second.messages[1]?.content.map((block) => block.type)).toEqual(['redacted_thinking', 'thinking', 'text']);
    expect(second.messages[1]?.content[0]).toEqual({
      type: 'redacted_thinking',
      data: expect.stringMatching(/^EmwKAhgB/),
    });
  });
});

describe('AnthropicModel errors', () => {
  // Retries and the mapping every vendor shares: test/adapters/models/contract/.
  it('keeps the request id of a refusal among its details', async () => {
    vendor.reply(ROUTE, {
      kind: 'json',
      status: 401,
      body: {
        type: 'error',
        error: { type: 'authentication_error', message: 'invalid x-api-key' },
        request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy',
      },
      headers: { 'request-id': 'req_011CSHoEeqs5C35K2UUqR7Fy' },
    });
    const { error } = await collectFailure(provider.create(MODEL).stream(request()));
    expect(error).toMatchObject({
      code: 'model_auth',
      details: { status: 401, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' },
    });
  });

  it('turns an overloaded_error event inside the stream into model_unavailable', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'anthropic/overloaded-midway.sse' });
    const { error, parts } = await collectFailure(provider.create(MODEL).stream(request()));
    expect(error).toMatchObject({ code: 'model_unavailable', details: { vendor_type: 'overloaded_error' } });
    expect(parts).toEqual([{ type: 'text-delta', delta: 'Partial' }]);
    expect(vendor.requests).toHaveLength(1);
  });
});
