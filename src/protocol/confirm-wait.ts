/**
 * How long a request that steers a run waits for the run to show it took effect, in seconds: a cancel
 * for the run's end (then it answers the run as it stands), a decision for the run's
 * `tool.approval_resolved` (then 503 `decision_unconfirmed`). The run may execute on another instance,
 * which may have stopped answering; past this the caller is told so rather than kept waiting.
 */
export const CONFIRM_WAIT_SECONDS = 10;
