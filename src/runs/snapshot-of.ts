import type { RunSnapshot } from '../protocol/run-snapshot.js';
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
    pending_approvals: Object.values(summary.pendingApprovals).map((entry) => ({ ...entry })),
    last_seq: log.lastSeq,
    ...(webhook === undefined ? {} : { webhook: { url: webhook.url, events: webhookEvents(webhook), deliveries: [] } }),
    ...(traceId === undefined ? {} : { trace_id: traceId }),
  };
}
