import { describe, expect, it } from 'vitest';
import {
  toResponsesInput,
  toResponsesParams,
  toResponsesTools,
} from '../../../../adapters/models/openai-responses/responses-message-converter.js';
import type { ResponsesReasoningData } from '../../../../adapters/models/openai-responses/responses-reasoning-data.js';
import type { Message, ReasoningBlock } from '../../../../src/models/conversation.js';

const PNG = 'iVBORw0KGgo=';

function reasoningBlock(data: Omit<ResponsesReasoningData, 'vendor'>, text = 'summary'): ReasoningBlock {
  return { text, providerData: { vendor: 'openai-responses', ...data } };
}

describe('toResponsesInput', () => {
  it('converts user text and images, and tool results with their images, as input items', () => {
    const messages: Message[] = [
      { role: 'system', content: 'ignored here' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'See' },
          { type: 'image', mimeType: 'image/png', data: PNG },
        ],
      },
      { role: 'tool', toolCallId: 'call_1', toolName: 'add', content: [{ type: 'text', text: '3' }], isError: false },
      {
        role: 'tool',
        toolCallId: 'call_2',
        toolName: 'shot',
        content: [
          { type: 'text', text: 'Screen:' },
          { type: 'image', mimeType: 'image/png', data: PNG },
        ],
        isError: false,
      },
    ];
    expect(toResponsesInput(messages, { store: true })).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: 'See' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
        ],
      },
      { type: 'function_call_output', call_id: 'call_1', output: '3' },
      {
        type: 'function_call_output',
        call_id: 'call_2',
        output: [
          { type: 'input_text', text: 'Screen:' },
          { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
        ],
      },
    ]);
  });

  it('sends an assistant turn without reasoning as a plain message and function calls without item ids', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: 'Checking.',
        reasoning: [],
        toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"title":"Dune"}' }],
      },
    ];
    expect(toResponsesInput(messages, { store: true })).toEqual([
      { type: 'message', role: 'assistant', content: 'Checking.' },
      { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{"title":"Dune"}' },
    ]);
  });

  it('sends a stored reasoning item back immediately followed by the items that followed it, with their ids', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: 'Looking up.',
        reasoning: [
          reasoningBlock({
            item: { id: 'rs_1', summary: [{ type: 'summary_text', text: 'plan' }] },
            following: [
              { type: 'message', id: 'msg_1' },
              { type: 'function_call', id: 'fc_1', callId: 'call_1' },
            ],
          }),
        ],
        toolCalls: [
          { id: 'call_1', name: 'lookup', arguments: '{"title":"Dune"}' },
          { id: 'call_2', name: 'lookup', arguments: 'not json' },
        ],
      },
    ];
    expect(toResponsesInput(messages, { store: true })).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'plan' }] },
      {
        type: 'message',
        id: 'msg_1',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Looking up.', annotations: [] }],
      },
      { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'lookup', arguments: '{"title":"Dune"}' },
      { type: 'function_call', call_id: 'call_2', name: 'lookup', arguments: '{}' },
    ]);
  });

  it('drops reasoning the vendor did not store unless it carries encrypted content', () => {
    const plain = reasoningBlock({
      item: { id: 'rs_1', summary: [] },
      following: [{ type: 'function_call', id: 'fc_1', callId: 'call_1' }],
    });
    const encrypted = reasoningBlock({
      item: { id: 'rs_2', summary: [], encrypted_content: 'gAAAA…' },
      following: [{ type: 'function_call', id: 'fc_2', callId: 'call_2' }],
    });
    const messages: Message[] = [
      {
        role: 'assistant',
        content: '',
        reasoning: [plain, encrypted],
        toolCalls: [
          { id: 'call_1', name: 'a', arguments: '{}' },
          { id: 'call_2', name: 'b', arguments: '{}' },
        ],
      },
    ];
    expect(toResponsesInput(messages, { store: false })).toEqual([
      { type: 'reasoning', id: 'rs_2', summary: [], encrypted_content: 'gAAAA…' },
      { type: 'function_call', id: 'fc_2', call_id: 'call_2', name: 'b', arguments: '{}' },
      { type: 'function_call', call_id: 'call_1', name: 'a', arguments: '{}' },
    ]);
  });

  it('leaves out a reasoning item whose following items are gone, and reasoning from other providers', () => {
    const messages: Message[] = [
      {
        role: 'assistant',
        content: '',
        reasoning: [
          reasoningBlock({
            item: { id: 'rs_1', summary: [] },
            following: [{ type: 'function_call', id: 'fc_9', callId: 'call_gone' }],
          }),
          { text: 'thinking', providerData: { vendor: 'anthropic', type: 'thinking', signature: 's' } },
        ],
        toolCalls: [{ id: 'call_1', name: 'a', arguments: '{}' }],
      },
    ];
    expect(toResponsesInput(messages, { store: true })).toEqual([
      { type: 'function_call', call_id: 'call_1', name: 'a', arguments: '{}' },
    ]);
  });
});

describe('toResponsesTools', () => {
  it('converts tools to non-strict function tools, keeping a property named title', () => {
    expect(
      toResponsesTools([
        {
          name: 'lookup',
          description: 'Find.',
          inputSchema: { $schema: 'x', type: 'object', properties: { title: { type: 'string' } } },
        },
      ]),
    ).toEqual([
      {
        type: 'function',
        name: 'lookup',
        description: 'Find.',
        parameters: { type: 'object', properties: { title: { type: 'string' } } },
        strict: false,
      },
    ]);
  });
});

describe('toResponsesParams', () => {
  const messages: Message[] = [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
  ];

  it('puts system messages in instructions and maps max_tokens to max_output_tokens', () => {
    expect(
      toResponsesParams('gpt-4.1-mini', {
        messages,
        tools: [],
        sampling: { temperature: 0.3, top_p: 0.8, max_tokens: 99, seed: 1 },
      }),
    ).toEqual({
      model: 'gpt-4.1-mini',
      instructions: 'Be brief.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hi' }] }],
      stream: true,
      temperature: 0.3,
      top_p: 0.8,
      max_output_tokens: 99,
    });
  });

  it('passes extra_body through and drops stored-only reasoning when it says store: false', () => {
    const history: Message[] = [
      ...messages,
      {
        role: 'assistant',
        content: 'ok',
        reasoning: [
          reasoningBlock({ item: { id: 'rs_1', summary: [] }, following: [{ type: 'message', id: 'msg_1' }] }),
        ],
        toolCalls: [],
      },
    ];
    const params = toResponsesParams('gpt-5-mini', {
      messages: history,
      tools: [],
      sampling: { extra_body: { store: false, reasoning: { effort: 'low' } } },
    });
    expect(params).toMatchObject({ store: false, reasoning: { effort: 'low' } });
    expect(params.input).toContainEqual({ type: 'message', role: 'assistant', content: 'ok' });
    expect(JSON.stringify(params.input)).not.toContain('rs_1');
  });
});
