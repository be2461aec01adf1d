import type { RunEvent } from '../../src/protocol/run-events.js';

/** Each turn's streamed message text (its `message.delta`s joined), in turn order; turns without text are left out. */
export function textByTurn(log: readonly RunEvent[]): string[] {
  const texts = new Map<number, string>();
  for (const event of log)
    if (event.event === 'message.delta') texts.set(event.turn, (texts.get(event.turn) ?? '') + event.delta);
  return [...texts.values()];
}
