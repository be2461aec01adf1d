import { describe, expect, it } from 'vitest';
import { chatCompletionOf } from '../../../src/http/formats/openai-completion.js';
import { ChatCompletionSchema } from '../../../src/protocol/chat-completion.js';
import type { RunEventInput, RunEventOf } from '../../../src/protocol/run-events.js';
import { logOf, streamedCallsEpisode, T0, twoTurnEpisode } from './log-of.js';

/** The `run.completed` that ends `log`. */
function completedOf(log: ReturnType<typeof logOf>['log']): RunEventOf<'run.completed'> {
  const last = log.terminal;
  if (last?.event !== 'run.completed') throw new Error(`the log ends with ${last?.event}`);
  return last;
}

describe('chatCompletionOf', () => {
  it('is the one assistant message the format=openai chunks add up to, with finish reason and usage', () => {
    const { context, log } = logOf(twoTurnEpisode);
    const completion = ChatCompletionSchema.parse(chatCompletionOf(context, completedOf(log)));
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
      runbridge: {
        run_id: 'run_test',
        reward: 1,
        finished: true,
        stop_reason: 'finished',
        turns: 2,
        tool_results: [
          {
            tool_call_id: 'call_a',
            tool: 'calculator',
            output: '2 + 2 = 4',
            error: false,
            reward: null,
            finished: false,
            duration: 0.01,
          },
          {
            tool_call_id: 'call_b',
            tool: 'submit',
            output: 'Correct.',
            error: false,
            reward: 1,
            finished: true,
            duration: 0.01,
          },
        ],
      },
    });
  });

  it('joins the pieces of calls whose arguments streamed, interleaved as they came, into whole calls', () => {
    const { context, log } = logOf(streamedCallsEpisode);
    const { message } = chatCompletionOf(context, completedOf(log)).choices[0]!;
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
    const { context, log } = logOf(silent);
    const completion = chatCompletionOf(context, completedOf(log));
    const { message, finish_reason } = completion.choices[0]!;
    expect(message).toEqual({ role: 'assistant', content: null, refusal: null });
    expect(finish_reason).toBe('length');
    expect(completion.runbridge).toEqual({
      run_id: 'run_test',
      reward: null,
      finished: false,
      stop_reason: 'max_turns',
      turns: 1,
      tool_results: [],
    });
  });
});
