import type { RunListItem } from 'runbridge/client';
import type { RunList } from '../hooks/use-run-list.js';
import { describeError } from '../state/describe-error.js';
import { formatAgo, formatReward, formatTask } from '../state/format.js';
import { routeHash } from '../state/route.js';
import { type ShownStatus, StatusBadge } from './status-badge.js';

export interface RunListViewProps {
  list: RunList;
  /** The run on screen, marked as the current page. */
  current: string | undefined;
  /**
   * The status the run on screen shows, from its live stream: its item says the same at once, rather
   * than what the list last polled.
   */
  currentStatus: ShownStatus | undefined;
  /** Shown on narrow screens (where the list is folded away until asked for). */
  open: boolean;
  now: number;
}

/** The runs of this key, newest first: status, environment and task, reward and age; each a link that opens it. */
export function RunListView({ list, current, currentStatus, open, now }: RunListViewProps) {
  const notice = list.failure === undefined ? undefined : describeError(list.failure, 'list the runs', location.origin);
  return (
    <nav id="run-list" class={`sidebar${open ? ' is-open' : ''}`} aria-labelledby="run-list-title">
      <div class="sidebar-inner">
        <div class="sidebar-head">
          <h2 id="run-list-title">Runs</h2>
          <button type="button" class="button button-small" onClick={list.refresh}>
            Refresh
          </button>
        </div>
        {notice && notice.action !== 'key' ? <p class="sidebar-note">{notice.message}</p> : null}
        {list.runs.length === 0 && notice === undefined ? <p class="sidebar-note">No runs yet.</p> : null}
        <ul class="run-items">
          {list.runs.map((run) => (
            <RunItem
              key={run.run_id}
              run={run}
              current={run.run_id === current}
              status={(run.run_id === current ? currentStatus : undefined) ?? run.status}
              now={now}
            />
          ))}
        </ul>
        {list.next === null ? null : (
          <button type="button" class="button button-small button-block" onClick={list.loadMore}>
            Show older runs
          </button>
        )}
      </div>
    </nav>
  );
}

function RunItem({
  run,
  current,
  status,
  now,
}: {
  run: RunListItem;
  current: boolean;
  status: ShownStatus;
  now: number;
}) {
  return (
    <li>
      <a class="run-item" href={routeHash(run.run_id)} aria-current={current ? 'page' : undefined}>
        <span class="run-item-title">
          {run.env} · {formatTask(run.task)}
        </span>
        <span class="run-item-meta">
          <StatusBadge status={status} />
          {run.reward === null ? null : <span>reward {formatReward(run.reward)}</span>}
          <time dateTime={new Date(run.created_at * 1000).toISOString()}>{formatAgo(run.created_at, now)}</time>
        </span>
      </a>
    </li>
  );
}
