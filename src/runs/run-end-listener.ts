import type { EventLog } from './event-log.js';
import type { RunRecord } from './run-record.js';

/**
 * Hears of a run that ended, once the store holds its whole log: on the instance that executed it, or
 * on the one that ended it for a lost instance (`RunStreams.onEnded`). Each end is told on
 * one instance, so a listener may be told of a run twice only when both happen (it must be
 * idempotent). The rollout service records a batch's pair here.
 */
export type RunEndListener = (record: RunRecord, log: EventLog) => Promise<void> | void;
