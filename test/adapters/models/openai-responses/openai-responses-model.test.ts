import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiResponsesProvider } from '../../../../adapters/models/openai-responses/openai-responses-provider.js';
import type { Message, ToolDefinition } from '../../../../src/models/conversation.js';
import type { ModelProvider, ModelRequest } from '../../../../src/models/model.js';
import { type FakeVendorServer, startFakeVendorServer } from '../../../support/fake-vendor-server.js';
import { assistantFrom, collectFailure, collectParts } from '../common/collect-parts.js';

const ROUTE = 'POST /v1/responses';

const tools: ToolDefinition[] = [
  {
    name: 'lookup',
    description: 'Find a book by title.',
    inputSchema: { type: 'object', properties: { title: { type: 'string', title: 'Title' } } },
  },
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
  provider = createOpenAiResponsesProvider({ apiKey: 'sk-test', baseUrl: `${vendor.url}/v1`, maxRetries: 2 });
});

afterEach(async () => {
  await vendor.close();
});

describe('the openai-responses provider', () => {
  it('names its models provider:name', () => {
    expect(provider.name).toBe('openai-responses');
    expect(provider.defaultModel).toBe('gpt-4.1-mini');
    expect(provider.create('gpt-5-mini').id).toBe('openai-responses:gpt-5-mini');
  });
});

describe('OpenAiResponsesModel against the Responses API', () => {
  it('streams text and sends instructions, input, tools (title property intact) and max_output_tokens', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-responses/text.sse' });
    const parts = await collectParts(
      provider.create('gpt-4.1-mini').stream(request({ sampling: { max_tokens: 300 } })),
    );
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'text-delta', 'text-delta', 'usage', 'finish']);
    expect(vendor.bodiesOf(ROUTE)[0]).toEqual({
      model: 'gpt-4.1-mini',
      instructions: 'You are a librarian.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Find Dune and Solaris.' }] }],
      tools: [
        {
          type: 'function',
          name: 'lookup',
          description: 'Find a book by title.',
          parameters: { type: 'object', properties: { title: { type: 'string', title: 'Title' } } },
          strict: false,
        },
      ],
      stream: true,
      max_output_tokens: 300,
    });
  });

  it('sends the reasoning item back on the next turn, followed by its function calls with their item ids', async () => {
    vendor.reply(
      ROUTE,
      { kind: 'stream', fixture: 'openai-responses/reasoning-function-calls.sse' },
      { kind: 'stream', fixture: 'openai-responses/text.sse' },
    );
    const model = provider.create('gpt-5-mini');
    const sampling = { extra_body: { reasoning: { effort: 'medium', summary: 'auto' } } };
    const assistant = assistantFrom(await collectParts(model.stream(request({ sampling }))));
    const results: Message[] = assistant.toolCalls.map((call) => ({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text: `found ${call.arguments}` }],
      isError: false,
    }));
    await collectParts(model.stream(request({ messages: [...opening, assistant, ...results], sampling })));

    const second = vendor.bodiesOf(ROUTE)[1] as { reasoning: unknown; input: unknown[] };
    expect(second.reasoning).toEqual({ effort: 'medium', summary: 'auto' });
    expect(second.input.slice(1)).toEqual([
      {
        type: 'reasoning',
        id: 'rs_68a1c3b3a1c48193a8f0e2d4c6b8a0e2',
        summary: [
          {
            type: 'summary_text',
            text: '**Planning lookups**\n\nThe user wants two books; I can look both up in parallel.',
          },
          { type: 'summary_text', text: '**Choosing titles**\n\nDune and Solaris.' },
        ],
      },
      {
        type: 'function_call',
        id: 'fc_68a1c3b5e7f08193bd2c4e6f8a0b2c4d',
        call_id: 'call_Lk3vR8pQ2mX7nB4cD9sF1aZe',
        name: 'lookup',
        arguments: '{"title":"Dune"}',
      },
      {
        type: 'function_call',
        id: 'fc_68a1c3b5e8148193a9d1f3b5c7e9f1a3',
        call_id: 'call_Wt6yH1jK5oP9uI3eR7qA2sDf',
        name: 'lookup',
        arguments: '{"title":"Solaris"}',
      },
      { type: 'function_call_output', call_id: 'call_Lk3vR8pQ2mX7nB4cD9sF1aZe', output: 'found {"title":"Dune"}' },
      { type: 'function_call_output', call_id: 'call_Wt6yH1jK5oP9uI3eR7qA2sDf', output: 'found {"title":"Solaris"}' },
    ]);
  });
});

describe('OpenAiResponsesModel errors', () => {
  // Retries and the mapping every vendor shares: test/adapters/models/contract/.
  it('turns response.failed into a ModelError of its code', async () => {
    vendor.reply(ROUTE, { kind: 'stream', fixture: 'openai-responses/failed.sse' });
    const { error } = await collectFailure(provider.create('gpt-4.1-mini').stream(request()));
    expect(error).toMatchObject({ code: 'model_unavailable', details: { vendor_type: 'server_error' } });
    expect((error as Error).message).toMatch(/failed to generate a response/);
  });
});
