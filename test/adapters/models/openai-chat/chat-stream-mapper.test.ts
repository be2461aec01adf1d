import { describe, expect, it } from 'vitest';
import {
  ChatStreamMapper,
  type CompatChatChunk,
  mapChatFinishReason,
} from '../../../../adapters/models/openai-chat/chat-stream-mapper.js';
import { ModelError } from '../../../../src/errors.js';
import { addTokenData } from '../../../../src/models/add-token-data.js';
import type { ModelPart, TokenData } from '../../../../src/models/model.js';
import { readSseFixtureData } from '../../../support/fake-vendor-server.js';

function mapAll(chunks: CompatChatChunk[]): ModelPart[] {
  const mapper = new ChatStreamMapper();
  return [...chunks.flatMap((chunk) => mapper.push(chunk)), ...mapper.end()];
}

function chunk(
  choice: Partial<CompatChatChunk['choices'][number]> | undefined,
  extra: Partial<CompatChatChunk> = {},
): CompatChatChunk {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: choice === undefined ? [] : [{ index: 0, delta: {}, finish_reason: null, ...choice }],
    ...extra,
  };
}

describe('ChatStreamMapper', () => {
  it('maps a text stream to text deltas, then usage and finish', () => {
    expect(mapAll(readSseFixtureData('openai-chat/text.sse'))).toEqual([
      { type: 'text-delta', delta: 'Hello' },
      { type: 'text-delta', delta: ', world' },
      { type: 'text-delta', delta: '! 👋' },
      { type: 'usage', usage: { inputTokens: 19, outputTokens: 6 } },
      { type: 'finish', reason: 'stop', rawReason: 'stop' },
    ]);
  });

  it('streams two parallel tool calls whose argument deltas interleave, then yields them whole in index order', () => {
    const add = { type: 'tool-call-delta', id: 'call_Qw1xT7aLJ3vN8d2PfGh5Rk0s', name: 'add' } as const;
    const lookup = { type: 'tool-call-delta', id: 'call_Zp4mB9cE6yU1oK3sW8tJ2nVa', name: 'lookup' } as const;
    expect(mapAll(readSseFixtureData('openai-chat/parallel-tool-calls.sse'))).toEqual([
      { ...add, delta: '' },
      { ...lookup, delta: '' },
      { ...add, delta: '{"a": 2' },
      { ...lookup, delta: '{"title": "Dune",' },
      { ...add, delta: ', "b": 40}' },
      { ...lookup, delta: ' "year": 1965}' },
      { type: 'tool-call', call: { id: 'call_Qw1xT7aLJ3vN8d2PfGh5Rk0s', name: 'add', arguments: '{"a": 2, "b": 40}' } },
      {
        type: 'tool-call',
        call: { id: 'call_Zp4mB9cE6yU1oK3sW8tJ2nVa', name: 'lookup', arguments: '{"title": "Dune", "year": 1965}' },
      },
      { type: 'usage', usage: { inputTokens: 84, outputTokens: 41 } },
      { type: 'finish', reason: 'tool_calls', rawReason: 'tool_calls' },
    ]);
  });

  it('yields a tool call whose arguments are not valid JSON with the raw text', () => {
    const parts = mapAll(readSseFixtureData('openai-chat/invalid-arguments.sse'));
    expect(parts).toContainEqual({
      type: 'tool-call',
      call: { id: 'call_Hn2kR8dQ5wX0bL7mC4vT9eYj', name: 'add', arguments: '{"a": 2, "b": ' },
    });
  });

  it('maps vLLM reasoning_content to reasoning deltas, a whole reasoning block before the text, and token data', () => {
    const parts = mapAll(readSseFixtureData('openai-chat/vllm-reasoning.sse'));
    expect(
      parts
        .filter((part) => part.type === 'reasoning-delta')
        .map((part) => part.delta)
        .join(''),
    ).toBe('Two plus two is four.');
    const kinds = parts.map((part) => part.type);
    expect(kinds.indexOf('reasoning')).toBeLessThan(kinds.indexOf('text-delta'));
    expect(parts).toContainEqual({ type: 'reasoning', block: { text: 'Two plus two is four.' } });
    expect(parts).toContainEqual({ type: 'text-delta', delta: '4' });
    // Each chunk's token data is a part of its own, as it comes; together they are the turn's.
    const pieces = parts.flatMap((part) => (part.type === 'token-data' ? [part.data] : []));
    expect(pieces.length).toBeGreaterThan(1);
    expect(kinds.indexOf('token-data')).toBeLessThan(kinds.lastIndexOf('text-delta'));
    const tokenData = pieces.reduce<TokenData | undefined>(addTokenData, undefined);
    expect(tokenData).toMatchObject({
      promptTokenIds: [151644, 872, 198, 3838, 374, 220, 17, 10, 17, 30, 151645],
      tokenIds: [11613, 5519, 1378, 374, 3040, 13, 19, 151645],
      logprobs: [-0.0123, -0.2001, -0.0031, -0.0004, -0.0107, -0.0009, -0.0002, -0.0001],
    });
    expect(tokenData!.raw).toHaveLength(8);
    expect(kinds.slice(-2)).toEqual(['usage', 'finish']);
  });

  it('reads reasoning from the `reasoning` field newer servers send', () => {
    const parts = mapAll([
      chunk({ delta: { reasoning: 'Hmm.' } }),
      chunk({ delta: { content: 'Yes.' } }),
      chunk({ delta: {}, finish_reason: 'stop' }),
    ]);
    expect(parts.slice(0, 3)).toEqual([
      { type: 'reasoning-delta', delta: 'Hmm.' },
      { type: 'reasoning', block: { text: 'Hmm.' } },
      { type: 'text-delta', delta: 'Yes.' },
    ]);
  });

  it('closes reasoning at the finish when no text follows it', () => {
    const parts = mapAll([
      chunk({ delta: { reasoning_content: 'only thoughts' } }),
      chunk({ finish_reason: 'length' }),
    ]);
    expect(parts).toEqual([
      { type: 'reasoning-delta', delta: 'only thoughts' },
      { type: 'reasoning', block: { text: 'only thoughts' } },
      { type: 'finish', reason: 'length', rawReason: 'length' },
    ]);
  });

  it('gives a tool call sent without an id a generated one and keeps a name repeated in later deltas whole', () => {
    const parts = mapAll([
      chunk({ delta: { tool_calls: [{ index: 0, function: { name: 'add', arguments: '{"a":' } }] } }),
      chunk({ delta: { tool_calls: [{ index: 0, function: { name: 'add', arguments: '1}' } }] } }),
      chunk({ finish_reason: 'tool_calls' }),
    ]);
    const call = parts.find((part) => part.type === 'tool-call');
    expect(call).toMatchObject({ call: { name: 'add', arguments: '{"a":1}' } });
    const id = (call as { call: { id: string } }).call.id;
    expect(id).toMatch(/^call_.+/);
    // The pieces name the call by the id it is yielded with.
    expect(parts.filter((part) => part.type === 'tool-call-delta')).toEqual([
      { type: 'tool-call-delta', id, name: 'add', delta: '{"a":' },
      { type: 'tool-call-delta', id, name: 'add', delta: '1}' },
    ]);
  });

  it('announces a call only once its name has come, with the arguments streamed before it', () => {
    const parts = mapAll([
      chunk({ delta: { tool_calls: [{ index: 0, id: 'call_x', function: { arguments: '{"a"' } }] } }),
      chunk({ delta: { tool_calls: [{ index: 0, function: { name: 'add', arguments: ':1' } }] } }),
      chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '}' } }] } }),
      chunk({ finish_reason: 'tool_calls' }),
    ]);
    expect(parts.filter((part) => part.type.startsWith('tool-call'))).toEqual([
      { type: 'tool-call-delta', id: 'call_x', name: 'add', delta: '{"a":1' },
      { type: 'tool-call-delta', id: 'call_x', name: 'add', delta: '}' },
      { type: 'tool-call', call: { id: 'call_x', name: 'add', arguments: '{"a":1}' } },
    ]);
  });

  it('tells apart whole calls that a server sends without an index by their ids', () => {
    const unindexed = (id: string | undefined, name: string | undefined, args: string) =>
      // Some servers leave `index` out although the OpenAI type requires it.
      ({ id, type: 'function', function: { name, arguments: args } }) as unknown as NonNullable<
        CompatChatChunk['choices'][number]['delta']['tool_calls']
      >[number];
    const parts = mapAll([
      chunk({ delta: { tool_calls: [unindexed('call_a', 'add', '{"a":')] } }),
      chunk({ delta: { tool_calls: [unindexed(undefined, undefined, '1}')] } }),
      chunk({ delta: { tool_calls: [unindexed('call_b', 'lookup', '{}')] } }),
      chunk({ delta: { tool_calls: [unindexed('call_a', undefined, '')] } }),
      chunk({ finish_reason: 'tool_calls' }),
    ]);
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([
      { type: 'tool-call', call: { id: 'call_a', name: 'add', arguments: '{"a":1}' } },
      { type: 'tool-call', call: { id: 'call_b', name: 'lookup', arguments: '{}' } },
    ]);
  });

  it('does not yield usage or token data that the server did not send', () => {
    expect(
      mapAll([chunk({ delta: { content: 'x' } }), chunk({ finish_reason: 'stop' })]).map((part) => part.type),
    ).toEqual(['text-delta', 'finish']);
  });

  it('throws model_stream_interrupted from end() when no chunk carried a finish reason', () => {
    const mapper = new ChatStreamMapper();
    mapper.push(chunk({ delta: { content: 'Hel' } }));
    expect(() => mapper.end()).toThrow(ModelError);
    expect(() => mapper.end()).toThrow(/stopped streaming before the turn was complete/);
    try {
      mapper.end();
    } catch (error) {
      expect(error).toMatchObject({ code: 'model_stream_interrupted' });
    }
  });
});

describe('mapChatFinishReason', () => {
  it.each([
    ['stop', false, 'stop'],
    ['stop', true, 'tool_calls'],
    ['tool_calls', true, 'tool_calls'],
    ['function_call', true, 'tool_calls'],
    ['length', false, 'length'],
    ['content_filter', false, 'content_filter'],
    ['eos_token', false, 'other'],
  ] as const)('maps %s (tool calls made: %s) to %s', (raw, madeCalls, expected) => {
    expect(mapChatFinishReason(raw, madeCalls)).toBe(expected);
  });
});
