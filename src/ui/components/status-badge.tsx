import type { RunStatus } from 'runbridge/client';

/**
 * What a run's badge can say: its status, `loading` before the page knows it, and `disconnected` while
 * the bridge does not answer (then the page cannot know what the run does).
 */
export type ShownStatus = RunStatus | 'loading' | 'disconnected';

/** Words for each status (the colour only repeats them): the run statuses of docs/api.md, and the page's own two. */
const LABELS: Record<ShownStatus, string> = {
  loading: 'loading',
  disconnected: 'connection lost',
  queued: 'queued',
  running: 'running',
  requires_action: 'needs a decision',
  awaiting_input: 'your turn',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A run's status as a small coloured label; a status newer than the page is shown as it is named. */
export function StatusBadge({ status }: { status: string }) {
  const known = Object.hasOwn(LABELS, status);
  return (
    <span class={`badge badge-${known ? status : 'other'}`}>
      {known ? LABELS[status as ShownStatus] : status.replaceAll('_', ' ')}
    </span>
  );
}
