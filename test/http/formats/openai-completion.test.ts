import { describe, expect, it } from 'vitest';
import { chatCompletionOf } from '../../../src/http/formats/openai-completion.js';
import { ChatCompletionSchema } from '../../../src/protocol/chat-completion.js';
import type { RunEventInput } from '../../../src/protocol/run-events.js';
import { logOf, streamedCallsEpisode, T0, twoTurnEpisode } from './log-of.js';

describe('chatCompletionOf', () => {
  it('is the one assistant message the format=openai chunks add up to, with finish reason and usage', () => {
    const completion = ChatCompletionSchema.parse(chatCompletionOf(logOf(twoTurnEpisode).context));
    expect(completion).toEqual({
      id: 'chatcmpl-run_test',
      object: 'chat.completion',
      created: T0 / 1000,
      model: 'scripted:test',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Let me add.\n\nIt is 4.',
            refusal: null,
            reasoning_content: 'Add them.',
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2 + 2"}' } },
              { id: 'call_b', type: 'function', function: { name: 'submit', arguments: '{"answer":4}' } },
            ],
          },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
    });
  });

  it('joins the pieces of calls whose arguments streamed, interleaved as they came, into whole calls', () => {
    const { message } = chatCompletionOf(logOf(streamedCallsEpisode).context).choices[0]!;
    expect(message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2 + 2"}' } },
      { id: 'call_b', type: 'function', function: { name: 'submit', arguments: '{"answer":4}' } },
    ]);
  });

  it('has null content and no tool_calls or reasoning for an episode that produced none', () => {
    const silent: RunEventInput[] = [
      twoTurnEpisode[0]!,
      {
        event: 'turn.completed',
        turn: 1,
        finish_reason: 'stop',
        usage: { input_tokens: 3, output_tokens: 0, total_tokens: 3 },
      },
      {
        event: 'run.completed',
        output: '',
        usage: { input_tokens: 3, output_tokens: 0, total_tokens: 3 },
        reward: null,
        rewards: [],
        finished: false,
        turns: 1,
        stop_reason: 'max_turns',
      },
    ];
    const { message, finish_reason } = chatCompletionOf(logOf(silent).context).choices[0]!;
    expect(message).toEqual({ role: 'assistant', content: null, refusal: null });
    expect(finish_reason).toBe('length');
  });
});
