import { describe, expect, it } from 'vitest';
import {
  toAnthropicMessages,
  toAnthropicParams,
  toAnthropicTools,
} from '../../../../adapters/models/anthropic/anthropic-message-converter.js';
import type { Message, ToolDefinition } from '../../../../src/models/conversation.js';

const PNG = 'iVBORw0KGgo=';

describe('toAnthropicMessages', () => {
  it('leaves system messages to the system field and sends user images as base64 blocks', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', mimeType: 'image/png', data: PNG },
        ],
      },
    ];
    expect(toAnthropicMessages(messages)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
    ]);
  });

  it('replaces an image of a type Anthropic does not take with a text note', () => {
    const [message] = toAnthropicMessages([
      { role: 'user', content: [{ type: 'image', mimeType: 'image/bmp', data: 'Qk0=' }] },
    ]);
    expect(message?.content).toEqual([{ type: 'text', text: expect.stringContaining('image/bmp omitted') }]);
  });

  it('sends thinking back with its signature and redacted thinking as its data, before text and tool_use blocks', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: 'Looking it up.',
        reasoning: [
          { text: '', providerData: { vendor: 'anthropic', type: 'redacted_thinking', data: 'opaque==' } },
          { text: 'Plan: look up.', providerData: { vendor: 'anthropic', type: 'thinking', signature: 'sig-1' } },
          { text: 'from another provider', providerData: { vendor: 'openai-responses' } },
          { text: 'no provider data' },
        ],
        toolCalls: [{ id: 'toolu_1', name: 'lookup', arguments: '{"title":"Dune"}' }],
      },
    ];
    expect(toAnthropicMessages(messages)).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'redacted_thinking', data: 'opaque==' },
          { type: 'thinking', thinking: 'Plan: look up.', signature: 'sig-1' },
          { type: 'text', text: 'Looking it up.' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { title: 'Dune' } },
        ],
      },
    ]);
  });

  it('sends tool_use input {} for arguments that are not a JSON object, and leaves empty text out', () => {
    const [message] = toAnthropicMessages([
      {
        role: 'assistant',
        content: '  ',
        reasoning: [],
        toolCalls: [{ id: 'toolu_1', name: 'add', arguments: '{"a": 2, "b": ' }],
      },
    ]);
    expect(message?.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'add', input: {} }]);
  });

  it('drops a turn left with no content at all', () => {
    expect(toAnthropicMessages([{ role: 'assistant', content: '', reasoning: [], toolCalls: [] }])).toEqual([]);
    expect(toAnthropicMessages([{ role: 'user', content: [{ type: 'text', text: '' }] }])).toEqual([]);
  });

  it('leaves the content of an empty tool result out', () => {
    const [message] = toAnthropicMessages([
      { role: 'tool', toolCallId: 'toolu_1', toolName: 'noop', content: [], isError: false },
    ]);
    expect(message?.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1' }]);
  });

  it('joins tool results and a following user message into one user turn, with is_error and images kept', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: '',
        reasoning: [],
        toolCalls: [
          { id: 'toolu_1', name: 'screenshot', arguments: '{}' },
          { id: 'toolu_2', name: 'add', arguments: '{}' },
        ],
      },
      {
        role: 'tool',
        toolCallId: 'toolu_1',
        toolName: 'screenshot',
        content: [
          { type: 'text', text: 'Screen:' },
          { type: 'image', mimeType: 'image/jpeg', data: 'abc' },
        ],
        isError: false,
      },
      {
        role: 'tool',
        toolCallId: 'toolu_2',
        toolName: 'add',
        content: [{ type: 'text', text: 'missing "b"' }],
        isError: true,
      },
      { role: 'user', content: [{ type: 'text', text: 'Go on.' }] },
    ];
    const out = toAnthropicMessages(messages);
    expect(out).toHaveLength(2);
    expect(out[1]).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          content: [
            { type: 'text', text: 'Screen:' },
            { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: 'abc' } },
          ],
        },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'missing "b"', is_error: true },
        { type: 'text', text: 'Go on.' },
      ],
    });
  });
});

describe('toAnthropicTools', () => {
  it('converts tools with an object input_schema, keeping a property named title and dropping $schema', () => {
    const tool: ToolDefinition = {
      name: 'lookup',
      description: 'Find a book.',
      inputSchema: {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: { title: { type: 'string' } },
        required: ['title'],
      },
    };
    expect(toAnthropicTools([tool])).toEqual([
      {
        name: 'lookup',
        description: 'Find a book.',
        input_schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
      },
    ]);
  });
});

describe('toAnthropicParams', () => {
  const messages: Message[] = [
    { role: 'system', content: 'One.' },
    { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
    { role: 'system', content: 'Two.' },
  ];

  it('joins system messages, streams, and uses the default max_tokens when the sampling sets none', () => {
    const params = toAnthropicParams(
      'claude-sonnet-5-5',
      { messages, tools: [], sampling: {} },
      { defaultMaxTokens: 8192 },
    );
    expect(params).toEqual({
      model: 'claude-sonnet-5-5',
      max_tokens: 8192,
      system: 'One.\n\nTwo.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      stream: true,
    });
  });

  it('sends max_tokens from the sampling, leaves out the sampling parameters this API version refuses, and passes extra_body', () => {
    const params = toAnthropicParams(
      'claude-sonnet-5-5',
      {
        messages,
        tools: [],
        sampling: {
          max_tokens: 2000,
          temperature: 0.5,
          top_p: 0.9,
          seed: 3,
          extra_body: { thinking: { type: 'enabled', budget_tokens: 1024 } },
        },
      },
      { defaultMaxTokens: 8192 },
    );
    expect(params).toMatchObject({ max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1024 } });
    expect(params).not.toHaveProperty('temperature');
    expect(params).not.toHaveProperty('top_p');
    expect(params).not.toHaveProperty('seed');
  });

  it('refuses extra_body keys the bridge must control', () => {
    expect(() =>
      toAnthropicParams(
        'm',
        { messages, tools: [], sampling: { extra_body: { messages: [] } } },
        { defaultMaxTokens: 1 },
      ),
    ).toThrow(/extra_body sets "messages"/);
  });
});
