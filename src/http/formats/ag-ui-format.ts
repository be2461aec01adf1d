import { formatSseFrame } from '../../sse/format-sse-frame.js';
import { agUiEventsOf } from './ag-ui-events.js';
import type { StreamFormat } from './stream-format.js';

/**
 * `format=ag-ui`: the run as AG-UI 1.0 events (see {@link agUiEventsOf}), one unnamed `data:` frame
 * each, as AG-UI's own SSE encoder writes them; no `[DONE]`, the stream ends after `RUN_FINISHED` or
 * `RUN_ERROR`. The last frame of each event's group carries `id:` = its seq, so a browser that
 * reconnects with `Last-Event-ID` resumes after the last whole event it got (AG-UI's HTTP client
 * ignores ids). An AG-UI client validates order from `RUN_STARTED` on, so it reads the stream from the
 * start; `?after=` and `Last-Event-ID` serve clients that keep their own state.
 */
export const agUiFormat: StreamFormat = {
  frame({ event }, context) {
    const events = agUiEventsOf(event, context);
    return events
      .map((agUiEvent, index) =>
        formatSseFrame({ ...(index === events.length - 1 ? { id: event.seq } : {}), data: JSON.stringify(agUiEvent) }),
      )
      .join('');
  },
  end: () => '',
};
