import { context, propagation, trace } from '@opentelemetry/api';

/**
 * `headers` with the active span's W3C `traceparent` (and `tracestate`), so a traced model server or
 * ORS server joins the run's trace; `headers` itself, untouched, outside any span — always, while
 * tracing is off. Through OpenTelemetry's API alone: the bridge's tracing registers the propagator.
 */
export function withTraceHeaders(headers: Record<string, string>): Record<string, string> {
  const active = context.active();
  if (trace.getSpanContext(active) === undefined) return headers;
  const carrier = { ...headers };
  propagation.inject(active, carrier);
  return carrier;
}
