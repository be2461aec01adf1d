import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import {
  AnthropicStreamMapper,
  mapAnthropicStopReason,
} from '../../../../adapters/models/anthropic/anthropic-stream-mapper.js';
import type { ModelPart } from '../../../../src/models/model.js';
import { readSseFixture } from '../../../support/fake-vendor-server.js';

/** The events the SDK would yield for a fixture: named events, `ping` dropped as the SDK drops it. */
function fixtureEvents(fixture: string): RawMessageStreamEvent[] {
  return readSseFixture(fixture)
    .filter((event) => event.event !== 'ping')
    .map((event) => JSON.parse(event.data) as RawMessageStreamEvent);
}

function mapAll(events: RawMessageStreamEvent[]): ModelPart[] {
  const mapper = new AnthropicStreamMapper();
  return [...events.flatMap((event) => mapper.push(event)), ...mapper.end()];
}

describe('AnthropicStreamMapper', () => {
  it('maps a text stream to text deltas, usage with cache reads counted as input, and finish', () => {
    expect(mapAll(fixtureEvents('anthropic/text.sse'))).toEqual([
      { type: 'text-delta', delta: 'Hello' },
      { type: 'text-delta', delta: '! How can I help?' },
      { type: 'usage', usage: { inputTokens: 125, outputTokens: 12 } },
      { type: 'finish', reason: 'stop', rawReason: 'end_turn' },
    ]);
  });

  it('streams thinking as reasoning deltas, yields the block whole with its signature, and streams then assembles tool_use input', () => {
    const dune = { type: 'tool-call-delta', id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'lookup' } as const;
    const solaris = { type: 'tool-call-delta', id: 'toolu_01VmXb3kZq8R2nEoC6sYtW4p', name: 'lookup' } as const;
    expect(mapAll(fixtureEvents('anthropic/thinking-tool-use.sse'))).toEqual([
      { type: 'reasoning-delta', delta: 'The user wants two books.' },
      { type: 'reasoning-delta', delta: ' I will look both up at once.' },
      {
        type: 'reasoning',
        block: {
          text: 'The user wants two books. I will look both up at once.',
          providerData: { vendor: 'anthropic', type: 'thinking', signature: expect.stringMatching(/^EqQBCgIYAhIM/) },
        },
      },
      { type: 'text-delta', delta: 'Looking up both titles.' },
      // content_block_start announces each call; its input_json_deltas follow as pieces.
      { ...dune, delta: '' },
      { ...dune, delta: '{"title": "Du' },
      { ...dune, delta: 'ne", "year": 1965}' },
      {
        type: 'tool-call',
        call: { id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6', name: 'lookup', arguments: '{"title": "Dune", "year": 1965}' },
      },
      { ...solaris, delta: '' },
      { ...solaris, delta: '{"title": "Solaris"}' },
      {
        type: 'tool-call',
        call: { id: 'toolu_01VmXb3kZq8R2nEoC6sYtW4p', name: 'lookup', arguments: '{"title": "Solaris"}' },
      },
      { type: 'tool-call-delta', id: 'toolu_01Pq7Lk2Mn4Bv8Cx1Zs5Dw9F', name: 'list_shelves', delta: '' },
      { type: 'tool-call', call: { id: 'toolu_01Pq7Lk2Mn4Bv8Cx1Zs5Dw9F', name: 'list_shelves', arguments: '{}' } },
      { type: 'usage', usage: { inputTokens: 472, outputTokens: 89 } },
      { type: 'finish', reason: 'tool_calls', rawReason: 'tool_use' },
    ]);
  });

  it('keeps redacted thinking opaque, with empty text and its data', () => {
    const parts = mapAll(fixtureEvents('anthropic/redacted-thinking.sse'));
    expect(parts[0]).toEqual({
      type: 'reasoning',
      block: {
        text: '',
        providerData: { vendor: 'anthropic', type: 'redacted_thinking', data: expect.stringMatching(/^EmwKAhgB/) },
      },
    });
    expect(parts.filter((part) => part.type === 'reasoning')).toHaveLength(2);
  });

  it('takes input tokens from message_delta when the API reports them there, keeping earlier cache counts', () => {
    const events = fixtureEvents('anthropic/text.sse').map((event) =>
      event.type === 'message_delta' ? { ...event, usage: { ...event.usage, input_tokens: 30 } } : event,
    );
    expect(mapAll(events)).toContainEqual({ type: 'usage', usage: { inputTokens: 130, outputTokens: 12 } });
  });

  it('throws model_stream_interrupted from end() when message_stop never came', () => {
    const mapper = new AnthropicStreamMapper();
    for (const event of fixtureEvents('anthropic/text.sse').slice(0, -1)) mapper.push(event);
    expect(() => mapper.end()).toThrow(expect.objectContaining({ code: 'model_stream_interrupted' }));
  });
});

describe('mapAnthropicStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['tool_use', 'tool_calls'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'other'],
  ] as const)('maps %s to %s', (raw, expected) => {
    expect(mapAnthropicStopReason(raw)).toBe(expected);
  });
});
