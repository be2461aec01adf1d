/**
 * Where a run sits in a trace, as W3C Trace Context headers: the span that created it (the request's,
 * a child of the caller's `traceparent` when it sent one). Plain JSON, carried in the run's record, so
 * the instance that executes the run — this one or another on the same Redis — continues that trace.
 */
export interface RunTraceContext {
  traceparent: string;
  tracestate?: string;
}

const TRACEPARENT = /^[\da-f]{2}-([\da-f]{32})-[\da-f]{16}-[\da-f]{2}$/;

/** The trace id of `trace`, or undefined without one (a run made while tracing was off). */
export function traceIdOf(trace: RunTraceContext | undefined): string | undefined {
  return trace === undefined ? undefined : TRACEPARENT.exec(trace.traceparent)?.[1];
}
