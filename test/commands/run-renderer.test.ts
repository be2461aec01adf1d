import { describe, expect, it } from 'vitest';
import { RunRenderer } from '../../src/commands/run-renderer.js';
import { RunEventFactory } from '../../src/protocol/event-factory.js';
import type { RunEventInput } from '../../src/protocol/run-events.js';

function render(inputs: RunEventInput[]): string {
  const factory = new RunEventFactory('run_x', () => 0);
  const renderer = new RunRenderer(false);
  return inputs.map((input) => renderer.render(factory.build(input))).join('');
}

describe('the terminal renderer of runbridge run', () => {
  it('streams reasoning and text, shows each tool with its duration and result, and ends with the reward', () => {
    const text = render([
      { event: 'run.started', env: 'arith', task: { split: 'train', index: 2 }, model: 'offline' },
      { event: 'reasoning.delta', delta: 'Plan: add.', turn: 1 },
      { event: 'message.delta', delta: 'The answer ', turn: 1 },
      { event: 'message.delta', delta: 'is 3.', turn: 1 },
      { event: 'reasoning.available', text: 'Plan: add.', turn: 1 },
      {
        event: 'tool.started',
        tool: 'submit',
        tool_call_id: 'c',
        arguments: { answer: 3 },
        preview: '{"answer":3}',
        turn: 1,
        call_index: 0,
      },
      {
        event: 'tool.completed',
        tool: 'submit',
        tool_call_id: 'c',
        duration: 0.25,
        error: false,
        output: 'Correct',
        reward: 1,
        finished: true,
        turn: 1,
        call_index: 0,
      },
      {
        event: 'turn.completed',
        turn: 1,
        finish_reason: 'tool_calls',
        usage: { input_tokens: 5, output_tokens: 5, total_tokens: 10 },
      },
      {
        event: 'run.completed',
        output: 'The answer is 3.',
        usage: { input_tokens: 5, output_tokens: 5, total_tokens: 10 },
        reward: 1,
        rewards: [],
        finished: true,
        turns: 1,
        stop_reason: 'finished',
      },
    ]);
    expect(text).toBe(
      '▶ run_x env arith · task train[2] · model offline\n' +
        '  thinking: Plan: add.\n' +
        '  The answer is 3.\n' +
        '  ⚙ submit {"answer":3}\n' +
        '    ✓ submit 0.25s → Correct reward 1 (episode finished)\n' +
        '■ completed reward 1 · 1 turns · 10 tokens · stop: finished\n',
    );
  });

  it('prints reasoning that was not streamed, and failures with their code', () => {
    const text = render([
      { event: 'run.started', env: 'arith', task: { spec: {} }, model: 'offline' },
      { event: 'reasoning.available', text: 'Hmm.', turn: 1 },
      { event: 'run.failed', error: 'model down', code: 'model_unavailable' },
    ]);
    expect(text).toContain('  thinking: Hmm.\n');
    expect(text).toContain('■ failed [model_unavailable] model down');
  });

  it('shows calls that wait for approval, how they were decided, a person’s messages and chat mode waiting', () => {
    const call = { tool: 'echo', tool_call_id: 'c', turn: 1, call_index: 0 };
    const resolved = { event: 'tool.approval_resolved', ...call, approval_id: 'a', edited: false } as const;
    const text = render([
      { event: 'message.delta', delta: 'Checking.', turn: 1 },
      {
        event: 'tool.approval_required',
        ...call,
        approval_id: 'a',
        arguments: { text: 'hi' },
        expires_at: 600,
        on_timeout: 'deny',
      },
      { ...resolved, decision: 'approve', by: 'client', arguments: { text: 'HI' }, edited: true },
      { ...resolved, decision: 'deny', by: 'client', reason: 'not now', arguments: { text: 'hi' } },
      { ...resolved, decision: 'deny', by: 'timeout', reason: 'No decision within 600 s.', arguments: {} },
      { event: 'run.awaiting_input', turn: 1, expires_at: 600 },
      { event: 'message.received', message_id: 'm', content: [{ type: 'text', text: 'Go on.' }], turn: 2 },
    ]);
    expect(text).toBe(
      '  Checking.\n' +
        '  ? echo {"text":"hi"} needs approval\n' +
        '    ✓ approved echo with {"text":"HI"}\n' +
        '    ✗ denied echo: not now\n' +
        '    ✗ denied echo (timeout)\n' +
        '  (waiting for your message)\n' +
        '  you: Go on.\n',
    );
  });
});
