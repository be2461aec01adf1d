import type { CancelReason, StopReason } from 'runbridge/client';
import { formatCount, formatReward } from '../state/format.js';
import type { RunOutcome } from '../state/run-transcript.js';

const STOP_REASONS: Record<StopReason, string> = {
  finished: 'the episode finished',
  no_tool_calls: 'the model answered without calling a tool',
  max_turns: 'it reached its turn limit (max_turns)',
};

const CANCEL_REASONS: Record<CancelReason, string> = {
  client: 'A client cancelled it (this page or the API).',
  orphaned: 'No client followed it for a while, so the bridge stopped it (RUNBRIDGE_ORPHAN_TTL_SECONDS).',
  shutdown: 'The bridge shut down before it finished.',
  timeout: 'It ran longer than the bridge allows (RUNBRIDGE_RUN_TIMEOUT_SECONDS).',
};

/**
 * How the run ended: completed with its reward and why it stopped, failed with the bridge's message, or
 * cancelled and why. Its heading takes the focus when Jump to latest brings it into view.
 */
export function RunOutcomeView({ outcome }: { outcome: RunOutcome }) {
  switch (outcome.kind) {
    case 'completed':
      return (
        <section class="outcome outcome-completed" aria-labelledby="outcome-title">
          <div class="outcome-head">
            <h2 id="outcome-title" tabIndex={-1}>
              Completed
            </h2>
            <p class="outcome-reward">
              <span class="outcome-reward-label">reward</span> {formatReward(outcome.reward)}
            </p>
          </div>
          <dl class="outcome-facts">
            <div>
              <dt>Turns</dt>
              <dd>{outcome.turns}</dd>
            </div>
            <div>
              <dt>Tokens</dt>
              <dd>{formatCount(outcome.usage.total_tokens)}</dd>
            </div>
            <div>
              <dt>Stopped because</dt>
              <dd>{STOP_REASONS[outcome.stopReason]}</dd>
            </div>
          </dl>
        </section>
      );
    case 'failed':
      return (
        <section class="outcome outcome-failed" aria-labelledby="outcome-title">
          <h2 id="outcome-title" tabIndex={-1}>
            Failed
          </h2>
          <p class="outcome-message" dir="auto">
            {outcome.error}
          </p>
          <p class="outcome-code">
            code <code>{outcome.code}</code>
          </p>
        </section>
      );
    case 'cancelled':
      return (
        <section class="outcome outcome-cancelled" aria-labelledby="outcome-title">
          <h2 id="outcome-title" tabIndex={-1}>
            Cancelled
          </h2>
          <p class="outcome-message">{CANCEL_REASONS[outcome.reason]}</p>
        </section>
      );
  }
}
