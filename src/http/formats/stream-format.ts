import type { RunEvent } from '../../protocol/run-events.js';
import type { LoggedEvent } from '../../runs/event-log.js';

/** What a stream's request asks of its format, from its validated query. */
export interface FormatOptions {
  /** `?agent_events=1`: in `format=openai`, the typed events ride along. */
  agentEvents: boolean;
}

/** The format options of a request whose query said nothing of them. */
export const DEFAULT_FORMAT_OPTIONS: FormatOptions = { agentEvents: false };

/** The format options of a route's validated query (`?agent_events`). */
export function formatOptionsOf(query: { agent_events?: string | undefined }): FormatOptions {
  return { agentEvents: query.agent_events === '1' || query.agent_events === 'true' };
}

/** What a format may know about the run besides the event itself. */
export interface StreamContext {
  runId: string;
  model: string;
  /** Epoch seconds the run was created (OpenAI's `created`). */
  created: number;
  /** What the request asked of the format. */
  options: FormatOptions;
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
  /**
   * The part of `options` that shapes this format's frames, as a short key; absent when none does.
   * Subscribers of one log at one cursor whose format and variant agree get the same bytes.
   */
  variant?(options: FormatOptions): string;
  /** The SSE text for one event; may be empty when the format has nothing to say about it. */
  frame(entry: LoggedEvent, context: StreamContext): string;
  /** The SSE text after the terminal event (e.g. `data: [DONE]`); may be empty. */
  end(terminal: RunEvent, context: StreamContext): string;
}
