import type { Admission } from '../runs/run-store.js';

/**
 * The refusals of `RunStore.submit` (docs/protocol.md §6), in one place: both stores judge the same
 * bounds in the same order — the key's stored bytes, all stored bytes, then the queue, the key's share of
 * it, the queued bytes —
 * and answer in these words, so a caller sees the same 429 whichever store holds the runs.
 */
export type Refusal = Extract<Admission, { kind: 'refused' }>;

/** Stored runs hold `held` of the `limit` bytes, and no finished run is left to forget. */
export function storeFull(held: number, limit: number): Refusal {
  return {
    kind: 'refused',
    code: 'store_full',
    message: `Stored runs hold ${held} bytes of the ${limit} allowed (RUNBRIDGE_MAX_STORED_BYTES) and none has finished to make room; retry once some runs have ended, or delete finished ones.`,
  };
}

/** The key's stored runs hold `held` of its `limit` bytes, and none of its own finished runs is left to forget. */
export function keyStoreFull(held: number, limit: number): Refusal {
  return {
    kind: 'refused',
    code: 'key_store_full',
    message: `This key's runs hold ${held} bytes of the ${limit} it may store (RUNBRIDGE_MAX_STORED_BYTES_PER_KEY) and none of its finished runs is left to forget; delete some of its finished runs, or retry once some have ended.`,
  };
}

/** The queue holds `held` runs, its bound. */
export function queueFull(held: number): Refusal {
  return {
    kind: 'refused',
    code: 'queue_full',
    message: `Every run slot is busy and the queue holds ${held} runs (RUNBRIDGE_MAX_QUEUED_RUNS); retry later.`,
  };
}

/** The key has `held` runs waiting, its share of the queue. */
export function keyQueueFull(held: number): Refusal {
  return {
    kind: 'refused',
    code: 'key_queue_full',
    message: `This key already has ${held} runs waiting, its share of the queue (RUNBRIDGE_MAX_QUEUED_PER_KEY); retry once some have started, or cancel some.`,
  };
}

/** The queued requests hold `held` bytes, and `requestBytes` more would pass `limit`. */
export function queueBytesFull(held: number, requestBytes: number, limit: number): Refusal {
  return {
    kind: 'refused',
    code: 'queue_full',
    message: `The queued requests hold ${held} bytes and this one ${requestBytes} more than the ${limit} allowed (RUNBRIDGE_MAX_QUEUED_BYTES); retry later, or send a smaller input.`,
  };
}
