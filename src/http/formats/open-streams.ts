import type { RunEvent } from '../../protocol/run-events.js';
import type { LoggedEvent } from '../../runs/event-log.js';

/**
 * Where a format stands in a model turn's streamed output, read from the log before an event.
 * The text, reasoning and forming tool calls of a turn arrive as an unbroken stretch of
 * `message.delta`, `reasoning.delta`, `reasoning.available` and `tool.arguments.delta` events (the
 * episode emits nothing else while the model streams), so a stretch begins where the previous event
 * of any other type ends, and every other event ends it. Formats that open and close messages
 * (AG-UI, AI SDK) or separate turns (OpenAI) read this instead of keeping per-subscriber state, so
 * their frames stay a pure function of the log.
 */
export interface OpenStreams {
  /** Turn of the newest `message.delta` in the current stretch: the turn whose text is open. */
  text?: number;
  /** Turn of the newest `reasoning.delta` or `reasoning.available` in the current stretch. */
  reasoning?: number;
}

/** The events that make up a model turn's streamed output. */
export type StreamedOutput = Extract<
  RunEvent,
  { event: 'message.delta' | 'reasoning.delta' | 'reasoning.available' | 'tool.arguments.delta' }
>;

/** True for the events that make up a model turn's streamed output. */
export function isStreamedOutput(event: RunEvent): event is StreamedOutput {
  return (
    event.event === 'message.delta' ||
    event.event === 'reasoning.delta' ||
    event.event === 'reasoning.available' ||
    event.event === 'tool.arguments.delta'
  );
}

const isText = (event: StreamedOutput) => event.event === 'message.delta';
const isReasoning = (event: StreamedOutput) =>
  event.event === 'reasoning.delta' || event.event === 'reasoning.available';

/**
 * Turn of the newest event that `matches` in the stretch before `seq`, or undefined. Scans back only
 * until it finds one or the stretch ends; the previous delta of a kind is nearly always the event
 * just before, so streaming a turn costs about one step per event, not one per event before it.
 */
function newestInStretch(
  log: readonly LoggedEvent[],
  seq: number,
  matches: (event: StreamedOutput) => boolean,
): number | undefined {
  for (let index = seq - 1; index >= 0; index--) {
    const event = log[index]!.event;
    if (!isStreamedOutput(event)) return undefined;
    if (matches(event)) return event.turn;
  }
  return undefined;
}

/** The turn whose text is open just before `seq` (undefined when none is). */
export function openTextTurn(log: readonly LoggedEvent[], seq: number): number | undefined {
  return newestInStretch(log, seq, isText);
}

/** The turn whose reasoning is open just before `seq` (undefined when none is). */
export function openReasoningTurn(log: readonly LoggedEvent[], seq: number): number | undefined {
  return newestInStretch(log, seq, isReasoning);
}

/**
 * Everything open just before `seq`: what an event that ends the stretch must close. Only the first
 * event after a stretch finds anything, so over a whole log these scans cost about one pass.
 */
export function openStreamsBefore(log: readonly LoggedEvent[], seq: number): OpenStreams {
  const open: OpenStreams = {};
  const text = openTextTurn(log, seq);
  const reasoning = openReasoningTurn(log, seq);
  if (text !== undefined) open.text = text;
  if (reasoning !== undefined) open.reasoning = reasoning;
  return open;
}

/**
 * True when an event of one of `types` comes before `seq`: whether a turn's text (or reasoning)
 * follows text (or reasoning) of an earlier turn. Stops at the first one found.
 */
export function hasEventBefore(
  log: readonly LoggedEvent[],
  seq: number,
  types: ReadonlyArray<RunEvent['event']>,
): boolean {
  for (let index = seq - 1; index >= 0; index--) {
    if (types.includes(log[index]!.event.event)) return true;
  }
  return false;
}
