import type { Admission } from '../run-store.js';

/**
 * The refusal the submit script answered (`code`, what is held, the bound), in the words the
 * memory store uses for the same bounds, so a caller sees the same 429 with either store.
 */
export function refusal(code: string, held: number, limit: number): Admission {
  switch (code) {
    case 'store_full':
      return {
        kind: 'refused',
        code,
        message: `Stored runs hold ${held} bytes of the ${limit} allowed (RUNBRIDGE_MAX_STORED_BYTES) and none has finished to make room; retry once some runs have ended, or delete finished ones.`,
      };
    case 'key_queue_full':
      return {
        kind: 'refused',
        code,
        message: `This key already has ${held} runs waiting, its share of the queue (RUNBRIDGE_MAX_QUEUED_PER_KEY); retry once some have started, or cancel some.`,
      };
    case 'queue_bytes':
      return {
        kind: 'refused',
        code: 'queue_full',
        message: `The queued requests hold ${held} bytes, and this one would pass the ${limit} allowed (RUNBRIDGE_MAX_QUEUED_BYTES); retry later, or send a smaller input.`,
      };
    default:
      return {
        kind: 'refused',
        code: 'queue_full',
        message: `Every run slot is busy and the queue holds ${held} runs (RUNBRIDGE_MAX_QUEUED_RUNS); retry later.`,
      };
  }
}
