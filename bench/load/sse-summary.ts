import { createParser } from 'eventsource-parser';

/** What a load client checks about one event stream it read. */
export interface SseSummary {
  /** Events dispatched (frames with data). */
  events: number;
  /** The `event:` name of the last one, or undefined when there was none. */
  lastEvent: string | undefined;
  /** The data of the last event. */
  lastData: string | undefined;
}

/** Parses a whole SSE body (by the spec, with eventsource-parser) and summarises it. */
export function summariseSse(text: string): SseSummary {
  const summary: SseSummary = { events: 0, lastEvent: undefined, lastData: undefined };
  const parser = createParser({
    onEvent: (event) => {
      summary.events++;
      summary.lastEvent = event.event;
      summary.lastData = event.data;
    },
  });
  parser.feed(text);
  return summary;
}

