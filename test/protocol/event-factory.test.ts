import { describe, expect, it } from 'vitest';
import { RunEventFactory } from '../../src/protocol/event-factory.js';
import { RunEventSchema } from '../../src/protocol/run-events.js';

/** Text that JSON must escape: quotes, backslashes, line breaks, control characters, a lone surrogate, emoji. */
const AWKWARD = 'say "hi"\\ \n\r\t\u0000\u001f \u2028 \ud800 😀 é';

describe('RunEventFactory', () => {
  it('numbers events from 0 and stamps them with the run and the clock, envelope first', () => {
    const factory = new RunEventFactory('run_a', () => 1_764_000_000_123.4);
    const first = factory.build({ event: 'message.delta', delta: 'Hi', turn: 1 });
    const second = factory.build({ event: 'turn.completed', turn: 1, finish_reason: 'stop', usage: usage() });
    expect(first).toEqual({
      event: 'message.delta',
      seq: 0,
      run_id: 'run_a',
      timestamp: 1_764_000_000.123,
      delta: 'Hi',
      turn: 1,
    });
    expect(Object.keys(second).slice(0, 4)).toEqual(['event', 'seq', 'run_id', 'timestamp']);
    expect(second.seq).toBe(1);
  });

  it('writes every event as JSON.stringify does, the streamed deltas included, whatever their text', () => {
    let now = 1_764_000_000_000;
    // The clock moves every other event, so some events share a millisecond and some do not.
    let reads = 0;
    const factory = new RunEventFactory('run_"odd"\\id', () => now + (reads++ >> 1) * 0.7);
    const events = [
      factory.build({ event: 'message.delta', delta: AWKWARD, turn: 1 }),
      factory.build({ event: 'message.delta', delta: '', turn: 2 }),
      factory.build({ event: 'reasoning.delta', delta: AWKWARD, turn: 1 }),
      factory.build({
        event: 'tool.arguments.delta',
        tool: 'sub"mit',
        tool_call_id: 'call\n1',
        delta: AWKWARD,
        turn: 3,
        call_index: 12,
      }),
      factory.build({ event: 'turn.completed', turn: 1, finish_reason: 'stop', usage: usage() }),
      factory.build({ event: 'run.started', env: 'arith', task: { split: 'train', index: 0 }, model: 'offline' }),
    ];
    now = 0;
    events.push(factory.build({ event: 'message.delta', delta: 'at the epoch', turn: 1 }));
    for (const event of events) {
      expect(factory.json(event)).toBe(JSON.stringify(event));
      expect(RunEventSchema.parse(JSON.parse(factory.json(event)))).toEqual(event);
    }
  });

  it('writes an event of another run as JSON.stringify does', () => {
    const event = new RunEventFactory('run_b').build({ event: 'message.delta', delta: 'x', turn: 1 });
    expect(new RunEventFactory('run_a').json(event)).toBe(JSON.stringify(event));
  });
});

function usage() {
  return { input_tokens: 1, output_tokens: 2, total_tokens: 3 };
}
