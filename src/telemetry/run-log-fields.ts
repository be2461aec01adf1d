import type { LogFields } from './logger.js';
import { type RunTraceContext, traceIdOf } from './trace-context.js';

/** What every log line about a run carries: its `run_id`, and its `trace_id` when it was made while tracing. */
export function runLogFields(run: { id: string; trace?: RunTraceContext | undefined }): LogFields {
  const traceId = traceIdOf(run.trace);
  return traceId === undefined ? { run_id: run.id } : { run_id: run.id, trace_id: traceId };
}
