/** Words for each status (the colour only repeats them): the run statuses of docs/api.md, and `loading`. */
const LABELS: Record<string, string> = {
  loading: 'loading',
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
      {known ? LABELS[status] : status.replaceAll('_', ' ')}
    </span>
  );
}
