import { describe, expect, it } from 'vitest';
import {
  toChatCompletionParams,
  toChatMessages,
  toChatTools,
} from '../../../../adapters/models/openai-chat/chat-message-converter.js';
import { ModelError } from '../../../../src/errors.js';
import type { Message, ToolDefinition } from '../../../../src/models/conversation.js';

const PNG = 'iVBORw0KGgo=';

const lookupTool: ToolDefinition = {
  name: 'lookup',
  description: 'Find a book.',
  inputSchema: {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'LookupArgs',
    type: 'object',
    properties: { title: { type: 'string', title: 'Title' }, year: { type: 'integer' } },
    required: ['title'],
    additionalProperties: false,
  },
};

describe('toChatMessages', () => {
  it('keeps system messages in place and sends user text as a string and images as data URIs', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi' },
          { type: 'text', text: 'there' },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image', mimeType: 'image/png', data: PNG },
        ],
      },
    ];
    expect(toChatMessages(messages)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi\nthere' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  it('sends assistant tool calls with null content and drops reasoning the API cannot take back', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: '',
        reasoning: [{ text: 'thinking…' }],
        toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a":1}' }],
      },
      { role: 'assistant', content: 'Done.', reasoning: [], toolCalls: [] },
    ];
    expect(toChatMessages(messages)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'add', arguments: '{"a":1}' } }],
      },
      { role: 'assistant', content: 'Done.' },
    ]);
  });

  it('sends back a past tool call whose arguments were not a JSON object with {} so servers that parse them accept the request', () => {
    const [message] = toChatMessages([
      {
        role: 'assistant',
        content: 'x',
        reasoning: [],
        toolCalls: [{ id: 'call_1', name: 'add', arguments: '{"a": 2, "b": ' }],
      },
    ]);
    expect(message).toMatchObject({ tool_calls: [{ function: { arguments: '{}' } }] });
  });

  it('puts tool-result images in one user message after the run of tool messages, leaving a placeholder in the tool text', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: '',
        reasoning: [],
        toolCalls: [
          { id: 'call_1', name: 'screenshot', arguments: '{}' },
          { id: 'call_2', name: 'add', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'call_1',
        toolName: 'screenshot',
        content: [
          { type: 'text', text: 'Here it is' },
          { type: 'image', mimeType: 'image/png', data: PNG },
        ],
        isError: false,
      },
      { role: 'tool', toolCallId: 'call_2', toolName: 'add', content: [{ type: 'text', text: '3' }], isError: false },
      { role: 'user', content: [{ type: 'text', text: 'Next?' }] },
    ];
    const out = toChatMessages(messages);
    expect(out.map((message) => message.role)).toEqual(['assistant', 'tool', 'tool', 'user', 'user']);
    expect(out[1]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'Here it is\n[image: image/png]' });
    expect(out[2]).toEqual({ role: 'tool', tool_call_id: 'call_2', content: '3' });
    expect(out[3]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Images returned by tool "screenshot" (call call_1):' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    });
    expect(out[4]).toEqual({ role: 'user', content: 'Next?' });
  });

  it('sends the images of a tool result that ends the conversation too', () => {
    const out = toChatMessages([
      {
        role: 'tool',
        toolCallId: 'call_1',
        toolName: 'screenshot',
        content: [{ type: 'image', mimeType: 'image/jpeg', data: 'abc' }],
        isError: false,
      },
    ]);
    expect(out).toHaveLength(2);
    expect(out[1]).toMatchObject({
      role: 'user',
      content: [{ type: 'text' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,abc' } }],
    });
  });
});

describe('toChatTools', () => {
  it('converts tools to function tools, removing $schema but keeping a property named title', () => {
    const [tool] = toChatTools([lookupTool]);
    expect(tool).toEqual({
      type: 'function',
      function: {
        name: 'lookup',
        description: 'Find a book.',
        parameters: {
          title: 'LookupArgs',
          type: 'object',
          properties: { title: { type: 'string', title: 'Title' }, year: { type: 'integer' } },
          required: ['title'],
          additionalProperties: false,
        },
      },
    });
  });
});

describe('toChatCompletionParams', () => {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }];

  it('streams with usage, maps sampling and uses the configured token-limit key', () => {
    const params = toChatCompletionParams(
      'gpt-4.1-mini',
      { messages, tools: [lookupTool], sampling: { temperature: 0.2, top_p: 0.9, seed: 7, max_tokens: 256 } },
      { maxTokensParam: 'max_completion_tokens' },
    );
    expect(params).toMatchObject({
      model: 'gpt-4.1-mini',
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.2,
      top_p: 0.9,
      seed: 7,
      max_completion_tokens: 256,
    });
    expect(params).not.toHaveProperty('max_tokens');
    expect(params.tools).toHaveLength(1);
  });

  it('leaves tools and unset sampling out of the body', () => {
    const params = toChatCompletionParams('m', { messages, tools: [], sampling: {} }, { maxTokensParam: 'max_tokens' });
    expect(Object.keys(params).sort()).toEqual(['messages', 'model', 'stream', 'stream_options']);
  });

  it('lays extra_body over the body verbatim, replacing keys the adapter set', () => {
    const params = toChatCompletionParams(
      'm',
      {
        messages,
        tools: [],
        sampling: {
          max_tokens: 10,
          extra_body: {
            return_token_ids: true,
            logprobs: true,
            max_tokens: 20,
            stream_options: { include_usage: true, continuous_usage_stats: true },
          },
        },
      },
      { maxTokensParam: 'max_tokens' },
    );
    expect(params).toMatchObject({
      return_token_ids: true,
      logprobs: true,
      max_tokens: 20,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
  });

  it('refuses extra_body keys the bridge must control, naming them', () => {
    const build = () =>
      toChatCompletionParams(
        'm',
        { messages, tools: [], sampling: { extra_body: { stream: false, model: 'x' } } },
        { maxTokensParam: 'max_tokens' },
      );
    expect(build).toThrow(ModelError);
    expect(build).toThrow(/"stream", "model"/);
    try {
      build();
    } catch (error) {
      expect(error).toMatchObject({ code: 'model_bad_request' });
    }
  });
});
