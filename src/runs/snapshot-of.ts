import {
  ARGUMENTS_PREVIEW_CHARS,
  type PendingApproval,
  type PendingApprovalSummary,
  type RunListItem,
  type RunSnapshot,
} from '../protocol/run-snapshot.js';
import { type WebhookRequest, webhookEvents } from '../protocol/webhook.js';
import { traceIdOf } from '../telemetry/trace-context.js';
import type { EventLog } from './event-log.js';
import type { RunRecord } from './run-record.js';

/**
 * The snapshot of the run made from `record` whose log is `log` (docs/protocol.md §2): a view of the
 * log's summary, never a second account. The webhook's deliveries are left empty: they change after
 * the log does, and the registry fills them in.
 */
export function snapshotOf(record: RunRecord, log: EventLog): RunSnapshot {
  return viewOf(record, log, (entry) => ({ ...entry }));
}

/**
 * The run as `GET /v1/runs` lists it (docs/protocol.md §2.6): its snapshot, each waiting call
 * summarised with a preview of its arguments instead of them. This is also what the Redis store keeps
 * of a run beside its log, so each append stores a summary whatever size the arguments are.
 */
export function listItemOf(record: RunRecord, log: EventLog): RunListItem {
  return viewOf(record, log, summaryOf);
}

function viewOf<Pending>(
  record: RunRecord,
  log: EventLog,
  pending: (entry: PendingApproval) => Pending,
): Omit<RunSnapshot, 'pending_approvals'> & { pending_approvals: Pending[] } {
  const summary = log.summary;
  const webhook: WebhookRequest | undefined = record.request.webhook;
  const traceId = traceIdOf(record.trace);
  return {
    run_id: record.id,
    status: summary.status,
    created_at: record.createdAt / 1000,
    updated_at: (log.updatedAt ?? record.createdAt) / 1000,
    env: record.env,
    task: record.task,
    model: record.model,
    metadata: record.request.metadata ?? {},
    turns: summary.turns,
    usage: summary.usage,
    reward: summary.reward,
    finished: summary.finished,
    output: summary.output,
    error: summary.error,
    stop_reason: summary.stopReason,
    pending_approvals: Object.values(summary.pendingApprovals).map(pending),
    last_seq: log.lastSeq,
    ...(webhook === undefined ? {} : { webhook: { url: webhook.url, events: webhookEvents(webhook), deliveries: [] } }),
    ...(traceId === undefined ? {} : { trace_id: traceId }),
  };
}

/**
 * Summaries by the entry of the log's summary they were made from: an entry stays the same object from
 * its `tool.approval_required` to its resolution, and lists and the Redis writer summarise the same
 * waiting calls again and again, so their arguments are serialised once, not at every list or append.
 */
const summaries = new WeakMap<PendingApproval, PendingApprovalSummary>();

function summaryOf(entry: PendingApproval): PendingApprovalSummary {
  let summary = summaries.get(entry);
  if (summary === undefined) {
    const { arguments: args, ...rest } = entry;
    const json = JSON.stringify(args);
    summary = {
      ...rest,
      arguments_preview: json.slice(0, ARGUMENTS_PREVIEW_CHARS),
      arguments_truncated: json.length > ARGUMENTS_PREVIEW_CHARS,
    };
    summaries.set(entry, summary);
  }
  return { ...summary };
}
