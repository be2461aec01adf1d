import { describe, expect, it } from 'vitest';
import { hasImageContent, messagesForExport, splitConversation } from '../../../src/rollouts/export/export-messages.js';
import type { ChatMessage } from '../../../src/rollouts/trajectory-schema.js';
import { sampleRecord } from '../sample-record.js';

const conversation: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'What is 2 + 2?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c1', type: 'function', function: { name: 'submit', arguments: '{"answer":4}' } }],
  },
  { role: 'tool', tool_call_id: 'c1', content: 'Correct.' },
  { role: 'assistant', content: 'Done.' },
];

describe('export messages', () => {
  it('splits the prompt from the model’s turns at the first assistant message', () => {
    expect(splitConversation(conversation)).toEqual({
      prompt: conversation.slice(0, 2),
      completion: conversation.slice(2),
    });
    expect(splitConversation(conversation.slice(0, 2))).toEqual({ prompt: conversation.slice(0, 2), completion: [] });
  });

  it('writes every content as parts when asked, keeping an assistant’s null content null', () => {
    expect(messagesForExport(conversation, false)).toEqual(conversation);
    expect(messagesForExport(conversation, true).map((message) => message.content)).toEqual([
      [{ type: 'text', text: 'Be brief.' }],
      [{ type: 'text', text: 'What is 2 + 2?' }],
      null,
      [{ type: 'text', text: 'Correct.' }],
      [{ type: 'text', text: 'Done.' }],
    ]);
  });

  it('tells records with images from text-only ones', () => {
    expect(hasImageContent(sampleRecord(0, 0, { messages: conversation }))).toBe(false);
    const image: ChatMessage = {
      role: 'tool',
      tool_call_id: 'c1',
      content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
    };
    expect(hasImageContent(sampleRecord(0, 0, { messages: [...conversation, image] }))).toBe(true);
  });
});
