import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/models/conversation.js';
import { toOpenAiChatMessages, toOpenAiChatTools } from '../../src/rollouts/to-openai-chat.js';
import { ChatMessageSchema } from '../../src/rollouts/trajectory-schema.js';

describe('toOpenAiChatMessages', () => {
  it('turns a whole episode into OpenAI chat messages, one for one and in order', () => {
    const messages: Message[] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is 2 + 3?' },
          { type: 'text', text: 'Use the tools.' },
        ],
      },
      {
        role: 'assistant',
        content: '',
        reasoning: [{ text: 'Add them.', providerData: { signature: 'opaque' } }, { text: 'Then submit.' }],
        toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression":"2 + 3"}' }],
      },
      {
        role: 'tool',
        toolCallId: 'call_1',
        toolName: 'calculator',
        content: [{ type: 'text', text: '2 + 3 = 5' }],
        isError: false,
      },
      { role: 'assistant', content: 'It is 5.', reasoning: [], toolCalls: [] },
    ];
    const chat = toOpenAiChatMessages(messages);
    expect(chat).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'What is 2 + 3?\nUse the tools.' },
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'Add them.\n\nThen submit.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2 + 3"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '2 + 3 = 5' },
      { role: 'assistant', content: 'It is 5.' },
    ]);
    for (const message of chat) expect(ChatMessageSchema.safeParse(message).success).toBe(true);
  });

  it('keeps tool-call arguments as the model wrote them, even when they are not JSON', () => {
    const [chat] = toOpenAiChatMessages([
      {
        role: 'assistant',
        content: 'Trying.',
        reasoning: [],
        toolCalls: [{ id: 'c', name: 'submit', arguments: '{"answer": 4' }],
      },
    ]);
    expect(chat).toEqual({
      role: 'assistant',
      content: 'Trying.',
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'submit', arguments: '{"answer": 4' } }],
    });
  });

  it('keeps images as data-URI parts, in user and tool messages alike', () => {
    const image = { type: 'image' as const, mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    const chat = toOpenAiChatMessages([
      { role: 'user', content: [{ type: 'text', text: 'Look:' }, image] },
      { role: 'tool', toolCallId: 't', toolName: 'screenshot', content: [image], isError: false },
    ]);
    const part = { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } };
    expect(chat).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Look:' }, part] },
      { role: 'tool', tool_call_id: 't', content: [part] },
    ]);
  });
});

describe('toOpenAiChatTools', () => {
  it('offers each tool as an OpenAI function tool with its schema untouched', () => {
    const schema = {
      type: 'object',
      properties: { answer: { anyOf: [{ type: 'number' }, { type: 'string' }] } },
      required: ['answer'],
    };
    expect(toOpenAiChatTools([{ name: 'submit', description: 'Submit.', inputSchema: schema }])).toEqual([
      { type: 'function', function: { name: 'submit', description: 'Submit.', parameters: schema } },
    ]);
  });
});
