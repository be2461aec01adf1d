import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import {
  mapIncompleteReason,
  ResponsesStreamMapper,
} from '../../../../adapters/models/openai-responses/responses-stream-mapper.js';
import { ModelError } from '../../../../src/errors.js';
import { addTokenData } from '../../../../src/models/add-token-data.js';
import type { ModelPart, TokenData } from '../../../../src/models/model.js';
import { readSseFixtureData } from '../../../support/fake-vendor-server.js';

function mapAll(events: ResponseStreamEvent[]): ModelPart[] {
  const mapper = new ResponsesStreamMapper();
  return [...events.flatMap((event) => mapper.push(event)), ...mapper.end()];
}

describe('ResponsesStreamMapper', () => {
  it('maps output text deltas, then usage and finish from response.completed', () => {
    expect(mapAll(readSseFixtureData('openai-responses/text.sse'))).toEqual([
      { type: 'text-delta', delta: 'Dune' },
      { type: 'text-delta', delta: ' was written by' },
      { type: 'text-delta', delta: ' Frank Herbert.' },
      { type: 'usage', usage: { inputTokens: 31, outputTokens: 9 } },
      { type: 'finish', reason: 'stop', rawReason: 'completed' },
    ]);
  });

  it('streams reasoning summaries and parallel calls, yields the calls whole, and ends with a reasoning block that knows what followed it', () => {
    const parts = mapAll(readSseFixtureData('openai-responses/reasoning-function-calls.sse'));
    const dune = { type: 'tool-call-delta', id: 'call_Lk3vR8pQ2mX7nB4cD9sF1aZe', name: 'lookup' } as const;
    const solaris = { type: 'tool-call-delta', id: 'call_Wt6yH1jK5oP9uI3eR7qA2sDf', name: 'lookup' } as const;
    const streamed = parts.flatMap((part) => (part.type === 'reasoning-delta' ? [part.delta] : [])).join('');
    const summary =
      '**Planning lookups**\n\nThe user wants two books; I can look both up in parallel.\n\n**Choosing titles**\n\nDune and Solaris.';
    expect(streamed).toBe(summary);
    expect(parts.filter((part) => part.type !== 'reasoning-delta')).toEqual([
      // output_item.added announces each call; the argument deltas of the two interleave.
      { ...dune, delta: '' },
      { ...solaris, delta: '' },
      { ...dune, delta: '{"title":' },
      { ...solaris, delta: '{"title":' },
      { ...dune, delta: '"Dune"}' },
      { ...solaris, delta: '"Solaris"}' },
      {
        type: 'tool-call',
        call: { id: 'call_Lk3vR8pQ2mX7nB4cD9sF1aZe', name: 'lookup', arguments: '{"title":"Dune"}' },
      },
      {
        type: 'tool-call',
        call: { id: 'call_Wt6yH1jK5oP9uI3eR7qA2sDf', name: 'lookup', arguments: '{"title":"Solaris"}' },
      },
      {
        type: 'reasoning',
        block: {
          text: summary,
          providerData: {
            vendor: 'openai-responses',
            item: {
              id: 'rs_68a1c3b3a1c48193a8f0e2d4c6b8a0e2',
              summary: [
                {
                  type: 'summary_text',
                  text: '**Planning lookups**\n\nThe user wants two books; I can look both up in parallel.',
                },
                { type: 'summary_text', text: '**Choosing titles**\n\nDune and Solaris.' },
              ],
            },
            following: [
              {
                type: 'function_call',
                id: 'fc_68a1c3b5e7f08193bd2c4e6f8a0b2c4d',
                callId: 'call_Lk3vR8pQ2mX7nB4cD9sF1aZe',
              },
              {
                type: 'function_call',
                id: 'fc_68a1c3b5e8148193a9d1f3b5c7e9f1a3',
                callId: 'call_Wt6yH1jK5oP9uI3eR7qA2sDf',
              },
            ],
          },
        },
      },
      { type: 'usage', usage: { inputTokens: 96, outputTokens: 211 } },
      { type: 'finish', reason: 'tool_calls', rawReason: 'completed' },
    ]);
  });

  it('maps response.incomplete for max_output_tokens to length', () => {
    expect(mapAll(readSseFixtureData('openai-responses/incomplete.sse')).at(-1)).toEqual({
      type: 'finish',
      reason: 'length',
      rawReason: 'max_output_tokens',
    });
  });

  it('throws a ModelError classified by the code of response.failed', () => {
    const mapper = new ResponsesStreamMapper();
    const events = readSseFixtureData<ResponseStreamEvent>('openai-responses/failed.sse');
    expect(() => events.forEach((event) => mapper.push(event))).toThrow(ModelError);
    expect(() => new ResponsesStreamMapper().push(events[2]!)).toThrow(
      expect.objectContaining({
        code: 'model_unavailable',
        details: expect.objectContaining({ vendor_type: 'server_error' }),
      }),
    );
  });

  it('throws for an error event, classified by its code', () => {
    const event: ResponseStreamEvent = {
      type: 'error',
      code: 'invalid_prompt',
      message: 'Invalid prompt.',
      param: null,
      sequence_number: 3,
    };
    expect(() => new ResponsesStreamMapper().push(event)).toThrow(
      expect.objectContaining({ code: 'model_bad_request' }),
    );
  });

  it('collects output-text logprobs as token data when the API sends them', () => {
    const events = readSseFixtureData<ResponseStreamEvent>('openai-responses/text.sse').map((event) =>
      event.type === 'response.output_text.delta'
        ? { ...event, logprobs: [{ token: event.delta, logprob: -0.5, top_logprobs: [] }] }
        : event,
    );
    const pieces = mapAll(events).flatMap((part) => (part.type === 'token-data' ? [part.data] : []));
    expect(pieces).toHaveLength(3);
    expect(pieces.reduce<TokenData | undefined>(addTokenData, undefined)).toEqual({
      logprobs: [-0.5, -0.5, -0.5],
      raw: expect.any(Array),
    });
  });

  it('throws model_stream_interrupted from end() when the response never completed', () => {
    const mapper = new ResponsesStreamMapper();
    for (const event of readSseFixtureData<ResponseStreamEvent>('openai-responses/text.sse').slice(0, -1))
      mapper.push(event);
    expect(() => mapper.end()).toThrow(expect.objectContaining({ code: 'model_stream_interrupted' }));
  });
});

describe('mapIncompleteReason', () => {
  it.each([
    ['max_output_tokens', 'length'],
    ['content_filter', 'content_filter'],
    ['something_new', 'other'],
  ] as const)('maps %s to %s', (raw, expected) => {
    expect(mapIncompleteReason(raw)).toBe(expected);
  });
});
