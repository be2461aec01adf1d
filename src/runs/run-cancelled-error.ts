import { RunbridgeError } from '../errors.js';
import type { CancelReason } from '../protocol/run-events.js';

const MESSAGES: Record<CancelReason, string> = {
  client: 'The run was cancelled by the client.',
  orphaned: 'The run was cancelled because no subscriber or request touched it within the orphan TTL.',
  shutdown: 'The run was cancelled because the server shut down before it finished.',
  timeout: 'The run was cancelled because it exceeded its time limit (RUNBRIDGE_RUN_TIMEOUT_SECONDS).',
};

/** The abort reason of a cancelled run; `reason` is what `run.cancelled` reports. */
export class RunCancelledError extends RunbridgeError {
  constructor(readonly reason: CancelReason) {
    super(MESSAGES[reason], { code: 'cancelled' });
  }
}
