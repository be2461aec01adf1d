import type { UIMessage } from 'ai';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { textByTurn } from '../support/text-by-turn.js';

/** A tool call as a chat UI shows it: name, input, and how it ended. */
export interface ToolSummary {
  toolCallId: string;
  toolName: string;
  input: unknown;
  state: string;
  output?: unknown;
  errorText?: string;
}

/** What a chat UI shows of one run: its steps, text, reasoning, tool calls, and how the run ended. */
export interface MessageSummary {
  id: string;
  steps: number;
  text: string[];
  reasoning: string[];
  tools: ToolSummary[];
  runStatus: string | undefined;
}

/**
 * What the run's own events say its UI message must show, worked out from the events alone (not
 * from the format's code): one step per turn, each turn's text and reasoning, each tool call that ran
 * with its parsed arguments and its output (or error), and the run's end.
 */
export function summaryOfEvents(events: readonly RunEvent[]): MessageSummary {
  const completed = new Map(
    events.flatMap((event) => (event.event === 'tool.completed' ? [[event.tool_call_id, event] as const] : [])),
  );
  const terminal = events.at(-1);
  return {
    id: events[0]!.run_id,
    steps: new Set(events.flatMap((event) => ('turn' in event ? [event.turn] : []))).size,
    text: textByTurn(events),
    reasoning: events.flatMap((event) => (event.event === 'reasoning.available' ? [event.text] : [])),
    tools: events.flatMap((event): ToolSummary[] => {
      if (event.event !== 'tool.started') return [];
      const done = completed.get(event.tool_call_id)!;
      const call = { toolCallId: event.tool_call_id, toolName: event.tool, input: event.arguments };
      return [
        done.error
          ? { ...call, state: 'output-error', errorText: done.error_message ?? done.output }
          : { ...call, state: 'output-available', output: done.output },
      ];
    }),
    runStatus:
      terminal?.event === 'run.completed'
        ? 'completed'
        : terminal?.event === 'run.failed'
          ? 'failed'
          : terminal?.event === 'run.cancelled'
            ? 'cancelled'
            : undefined,
  };
}

/** The same summary, read from a UI message as the AI SDK built it. */
export function summaryOfMessage(message: UIMessage): MessageSummary {
  const run = message.parts.find((part) => part.type === 'data-runbridge-run') as
    | { data: { status: string } }
    | undefined;
  return {
    id: message.id,
    steps: message.parts.filter((part) => part.type === 'step-start').length,
    text: message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])),
    reasoning: message.parts.flatMap((part) => (part.type === 'reasoning' ? [part.text] : [])),
    tools: message.parts.flatMap((part): ToolSummary[] => {
      if (part.type !== 'dynamic-tool') return [];
      const call = { toolCallId: part.toolCallId, toolName: part.toolName, input: part.input, state: part.state };
      if (part.state === 'output-available') return [{ ...call, output: part.output }];
      if (part.state === 'output-error') return [{ ...call, errorText: part.errorText }];
      return [call];
    }),
    runStatus: run?.data.status,
  };
}
