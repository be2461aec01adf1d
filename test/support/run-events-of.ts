import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';

/**
 * The run events of an event stream, each checked against the schema, to the end of the stream — or
 * only the first `count`, after which it hangs up.
 */
export async function runEventsOf(
  body: ReadableStream<Uint8Array>,
  count = Number.POSITIVE_INFINITY,
): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const frame of readSseEvents(body)) {
    events.push(RunEventSchema.parse(JSON.parse(frame.data)));
    if (events.length >= count) break;
  }
  return events;
}
