import type { RunSnapshot } from 'runbridge/client';

/**
 * The run's trace id, when it was traced (docs/operations.md#traces): a link to the trace where the
 * server has `RUNBRIDGE_TRACE_URL`, else the id to copy into a tracing UI.
 */
export function TraceLink({ snapshot }: { snapshot: RunSnapshot | undefined }) {
  const traceId = snapshot?.trace_id;
  if (traceId === undefined) return null;
  const url = snapshot?.trace_url;
  return url !== undefined && /^https?:\/\//.test(url) ? (
    <a class="run-trace" href={url} target="_blank" rel="noopener noreferrer" title="Open the run's trace">
      trace {traceId}
    </a>
  ) : (
    <code class="run-trace" title="The run's trace id">
      trace {traceId}
    </code>
  );
}
