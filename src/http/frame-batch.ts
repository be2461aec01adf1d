import type { LoggedEvent } from '../runs/event-log.js';
import type { StreamContext, StreamFormat } from './formats/stream-format.js';

/** Characters per batch of frames, so a long replay cannot balloon one socket's buffer. */
export const REPLAY_BATCH_BYTES = 64 * 1024;

/** Bytes of batches kept for subscribers that come for the same ones. */
const KEPT_BYTES = 8 * 1024 * 1024;

/** The encoded frames of a log's events from a cursor up to (not including) `to`. */
export interface FrameBatch {
  readonly to: number;
  readonly bytes: Buffer;
}

interface KeptBatch extends FrameBatch {
  /** The batch stopped at {@link REPLAY_BATCH_BYTES}, not at the end of the log it was built from. */
  readonly full: boolean;
}

/**
 * The newest batches, by log, format, the format's variant and cursor, oldest first, {@link KEPT_BYTES}
 * at most. A log only grows and its frames depend only on the events up to them, the format and what of
 * the request shapes that format's bytes (`StreamFormat.variant`) — never on a token or a cursor in the
 * query — so a batch stays right for whoever reads the same log the same way from the same cursor.
 */
const kept = new Map<string, KeptBatch>();
let keptBytes = 0;

/** A number per log and per format for the keys of {@link kept}. */
const numbers = new WeakMap<object, number>();
let lastNumber = 0;

function numberOf(thing: object): number {
  let number = numbers.get(thing);
  if (number === undefined) {
    number = ++lastNumber;
    numbers.set(thing, number);
  }
  return number;
}

/**
 * The next batch for a subscriber at `from` in `format`: the frames of the events from there up to
 * the end of `entries` or {@link REPLAY_BATCH_BYTES}, encoded. Subscribers at the same cursor in the
 * same format and query — every live subscriber after a burst, every replay of a finished run — get
 * the same batch, framed and encoded once, so per subscriber a write costs the socket alone
 * (`bench/`, benchmark 1).
 */
export function frameBatch(
  entries: readonly LoggedEvent[],
  format: StreamFormat,
  context: StreamContext,
  from: number,
): FrameBatch {
  const key = `${numberOf(entries)}\n${numberOf(format)}\n${format.variant?.(context.options) ?? ''}\n${from}`;
  const batch = kept.get(key);
  // The batch this reader would build: as far as the log goes now (or as far as a batch may go).
  if (batch !== undefined && (batch.full || batch.to === entries.length)) {
    kept.delete(key);
    kept.set(key, batch);
    return batch;
  }
  let text = '';
  let to = from;
  while (to < entries.length && text.length < REPLAY_BATCH_BYTES) {
    text += format.frame(entries[to]!, context);
    to++;
  }
  const built: KeptBatch = { to, bytes: Buffer.from(text), full: to < entries.length };
  keep(key, built);
  return built;
}

function keep(key: string, batch: KeptBatch): void {
  const replaced = kept.get(key);
  if (replaced !== undefined) {
    kept.delete(key);
    keptBytes -= replaced.bytes.length;
  }
  kept.set(key, batch);
  keptBytes += batch.bytes.length;
  for (const [oldest, { bytes }] of kept) {
    if (keptBytes <= KEPT_BYTES) break;
    kept.delete(oldest);
    keptBytes -= bytes.length;
  }
}
