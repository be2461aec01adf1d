import { describe, expect, it } from 'vitest';
import { RunEventFactory } from '../../src/protocol/event-factory.js';
import type { RunEvent, RunEventInput } from '../../src/protocol/run-events.js';
import { assertEventOrder, EventOrderError, findEventOrderViolations } from '../../src/protocol/verify-event-order.js';

function log(...inputs: RunEventInput[]): RunEvent[] {
  const factory = new RunEventFactory('run_test', () => 1_764_000_000_123);
  return inputs.map((input) => factory.build(input));
}

const started: RunEventInput = {
  event: 'run.started',
  env: 'arith',
  task: { split: 'train', index: 0 },
  model: 'offline',
};
const toolStarted: RunEventInput = {
  event: 'tool.started',
  tool: 'submit',
  tool_call_id: 'c1',
  arguments: { answer: 4 },
  preview: '4',
  turn: 1,
  call_index: 0,
};
const toolCompleted: RunEventInput = {
  event: 'tool.completed',
  tool: 'submit',
  tool_call_id: 'c1',
  duration: 0.01,
  error: false,
  output: 'Correct',
  reward: 1,
  finished: true,
  turn: 1,
  call_index: 0,
};
const cancelled: RunEventInput = { event: 'run.cancelled', reason: 'client' };

describe('the event factory', () => {
  it('numbers events from 0 without gaps and fills run_id and timestamp in epoch seconds', () => {
    const events = log(started, cancelled);
    expect(events.map((event) => event.seq)).toEqual([0, 1]);
    expect(events[0]).toMatchObject({ event: 'run.started', run_id: 'run_test', timestamp: 1_764_000_000.123 });
    expect(Object.keys(events[0]!).slice(0, 4)).toEqual(['event', 'seq', 'run_id', 'timestamp']);
  });
});

describe('the event order verifier', () => {
  it('accepts a well-formed log', () => {
    expect(() => assertEventOrder(log(started, toolStarted, toolCompleted, cancelled))).not.toThrow();
  });

  it('requires run.started at seq 0', () => {
    expect(findEventOrderViolations(log(cancelled))).toContain('seq 0 is run.cancelled, not run.started');
  });

  it('takes the prompt at most once, before the first turn', () => {
    const prompt: RunEventInput = { event: 'prompt.available', text: 'What is 2 + 2?' };
    expect(findEventOrderViolations(log(started, prompt, toolStarted, toolCompleted, cancelled))).toEqual([]);
    expect(findEventOrderViolations(log(started, prompt, prompt, cancelled))).toEqual([
      'prompt.available repeated at seq 2',
    ]);
    expect(findEventOrderViolations(log(started, toolStarted, toolCompleted, prompt, cancelled))).toEqual([
      'prompt.available at seq 3 follows turn 1',
    ]);
  });

  it('requires exactly one terminal event, last', () => {
    expect(findEventOrderViolations(log(started))).toContain('the log has no terminal event');
    expect(findEventOrderViolations(log(started, cancelled, cancelled))).toContain(
      'run.cancelled at seq 2 follows the terminal event at seq 1',
    );
  });

  it('requires every tool.completed to follow its tool.started and every started tool to complete', () => {
    expect(findEventOrderViolations(log(started, toolCompleted, cancelled))).toContain(
      'tool.completed for c1 at seq 1 has no open tool.started',
    );
    expect(findEventOrderViolations(log(started, toolStarted, cancelled))).toContain(
      'tool call c1 started at seq 1 never completed',
    );
  });

  it("requires a call's argument deltas before its tool.started and its progress while it runs", () => {
    const call = { tool: 'submit', tool_call_id: 'c1', turn: 1, call_index: 0 };
    const delta: RunEventInput = { event: 'tool.arguments.delta', ...call, delta: '{"answer":4}' };
    const progress: RunEventInput = { event: 'tool.progress', ...call, elapsed: 5 };
    expect(findEventOrderViolations(log(started, delta, toolStarted, progress, toolCompleted, cancelled))).toEqual([]);
    expect(findEventOrderViolations(log(started, toolStarted, delta, toolCompleted, cancelled))).toEqual([
      'tool.arguments.delta for c1 at seq 2 follows its tool.started',
    ]);
    expect(findEventOrderViolations(log(started, progress, toolStarted, toolCompleted, progress, cancelled))).toEqual([
      'tool.progress for c1 at seq 1 has no open tool.started',
      'tool.progress for c1 at seq 4 has no open tool.started',
    ]);
  });

  it('requires every approval resolved once, before its call starts and before the end, and a denied call never to start', () => {
    const call = { tool: 'submit', tool_call_id: 'c1', turn: 1, call_index: 0 };
    const required: RunEventInput = {
      event: 'tool.approval_required',
      ...call,
      approval_id: 'a1',
      arguments: { answer: 4 },
      expires_at: 1_764_000_600,
      on_timeout: 'deny',
    };
    const resolved = (decision: 'approve' | 'deny'): RunEventInput => ({
      event: 'tool.approval_resolved',
      ...call,
      approval_id: 'a1',
      decision,
      by: 'client',
      arguments: { answer: 4 },
      edited: false,
    });
    expect(
      findEventOrderViolations(log(started, required, resolved('approve'), toolStarted, toolCompleted, cancelled)),
    ).toEqual([]);
    expect(findEventOrderViolations(log(started, required, resolved('deny'), cancelled))).toEqual([]);
    expect(findEventOrderViolations(log(started, required, toolStarted, toolCompleted, cancelled))).toContain(
      'tool call c1 started at seq 2 while its approval was open',
    );
    expect(
      findEventOrderViolations(log(started, required, resolved('deny'), toolStarted, toolCompleted, cancelled)),
    ).toContain('tool call c1 started at seq 3 although it was denied');
    expect(findEventOrderViolations(log(started, required, cancelled))).toEqual(['approval a1 was never resolved']);
    expect(findEventOrderViolations(log(started, resolved('approve'), cancelled))).toEqual([
      'tool.approval_resolved for a1 at seq 1 has no open approval',
    ]);
    expect(findEventOrderViolations(log(started, required, resolved('deny'), resolved('deny'), cancelled))).toEqual([
      'tool.approval_resolved for a1 at seq 3 has no open approval',
    ]);
    expect(findEventOrderViolations(log(started, required), { complete: false })).toEqual([]);
  });

  it('finds gaps in seq', () => {
    const events = log(started, toolStarted, toolCompleted, cancelled);
    events.splice(1, 1);
    expect(findEventOrderViolations(events)).toContain('event at position 1 has seq 2');
  });

  it('lets a log still being written lack its terminal event', () => {
    expect(findEventOrderViolations(log(started, toolStarted), { complete: false })).toEqual([]);
  });

  it('throws an error listing every violation', () => {
    expect(() => assertEventOrder(log(cancelled, cancelled))).toThrow(EventOrderError);
  });
});
