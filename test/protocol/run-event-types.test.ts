import { describe, expect, it } from 'vitest';
import { isKnownRunEvent, isTerminalRunEvent } from '../../src/client/client-types.js';
import { RUN_EVENT_TYPES, TERMINAL_EVENT_TYPES } from '../../src/protocol/run-event-types.js';
import { RunEventSchema } from '../../src/protocol/run-events.js';

const envelope = { seq: 0, run_id: 'run_x', timestamp: 0 };

describe('the list of run event types', () => {
  it("is the schema's own: every type of RunEventSchema, in its order, and nothing else", () => {
    expect(RunEventSchema.options.map((option) => option.shape.event.value)).toEqual([...RUN_EVENT_TYPES]);
  });

  it('is what runbridge/client knows: each type is known, a newer one is not, the three terminal ones end a log', () => {
    for (const event of RUN_EVENT_TYPES) {
      expect(isKnownRunEvent({ event, ...envelope })).toBe(true);
      expect(isTerminalRunEvent({ event, ...envelope })).toBe(
        (TERMINAL_EVENT_TYPES as readonly string[]).includes(event),
      );
    }
    expect(isKnownRunEvent({ event: 'run.paused', ...envelope })).toBe(false);
    expect(isKnownRunEvent({ event: 'toString', ...envelope })).toBe(false);
  });
});
