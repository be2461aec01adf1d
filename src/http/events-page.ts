import type { OpenedRun } from '../runs/run-store.js';

/**
 * The JSON page of `run`'s events after seq `after` (`GET /v1/runs/:id/events` with `Accept:
 * application/json`): at most `limit` events, and no more than about `maxBytes` characters of them —
 * the event that passes the bound is the page's last, so one event larger than it still comes whole.
 * `has_more` and `next_after` page on from there. Written from each event's stored JSON, not parsed
 * and built again: a page of a run of large events was otherwise built whole, tens of megabytes per
 * request, and held while its client did not read it (issue 42).
 */
export function eventsPage({ record, log }: OpenedRun, after: number, limit: number, maxBytes: number): string {
  const { entries } = log;
  const data: string[] = [];
  let bytes = 0;
  for (let seq = after + 1; seq < entries.length && data.length < limit && bytes < maxBytes; seq++) {
    const { json } = entries[seq]!;
    data.push(json);
    bytes += json.length;
  }
  const last = after + data.length;
  const hasMore = data.length > 0 && last < log.lastSeq;
  return (
    `{"run_id":${JSON.stringify(record.id)},"status":${JSON.stringify(log.summary.status)},` +
    `"data":[${data.join(',')}],"last_seq":${log.lastSeq},"has_more":${hasMore},"next_after":${hasMore ? last : null}}`
  );
}
