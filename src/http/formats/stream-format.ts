import type { RunEvent } from '../../protocol/run-events.js';
import type { LoggedEvent } from '../../runs/event-log.js';

/** What a format may know about the run besides the event itself. */
export interface StreamContext {
  runId: string;
  model: string;
  /** Epoch seconds the run was created (OpenAI's `created`). */
  created: number;
  /** Query options of the request (e.g. `agent_events`). */
  options: URLSearchParams;
  /**
   * The run's log. A format may read the events before the one it frames (never those after), e.g.
   * to know whether a turn's text has begun; they never change, so the frames stay the same for
   * every subscriber and every replay.
   */
  log: readonly LoggedEvent[];
}

/**
 * A way of serving a run's event log over SSE. Each is a pure projection: the frames for an event
 * depend only on that event, the events before it and the context, so any subscriber can start at
 * any `seq`.
 */
export interface StreamFormat {
  /** Response headers the format adds to the SSE ones (e.g. a protocol version its clients check). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The SSE text for one event; may be empty when the format has nothing to say about it. */
  frame(entry: LoggedEvent, context: StreamContext): string;
  /** The SSE text after the terminal event (e.g. `data: [DONE]`); may be empty. */
  end(terminal: RunEvent, context: StreamContext): string;
}
