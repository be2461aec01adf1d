import { type DestinationStream, pino, stdSerializers, stdTimeFunctions } from 'pino';
import { prettyFactory } from 'pino-pretty';
import { escapeControls } from './escape-controls.js';
import type { Logger } from './logger.js';
import { stderrDestination } from './stderr-destination.js';

/** How {@link createLogger} writes. */
export type LoggerOptions = {
  /** The least severe line written (`RUNBRIDGE_LOG_LEVEL`). */
  level: 'debug' | 'info' | 'warn' | 'error';
  /** One JSON object per line, or readable lines (`RUNBRIDGE_LOG_FORMAT`). */
  format: 'json' | 'pretty';
} & (
  | {
      /** Where lines go (tests); stderr when absent, so stdout stays the commands' own output. */
      destination: DestinationStream;
    }
  | {
      /** Bytes of lines that may wait for stderr (`RUNBRIDGE_LOG_BUFFER_BYTES`); past them lines are dropped. */
      bufferBytes: number;
    }
);

/** How long a process, as it ends, waits for its log lines to reach stderr: a stuck reader must not keep it alive. */
export const LOG_DRAIN_MS = 2000;

/** The bridge's own logger, and the way to let it finish writing before the process exits. */
export interface OwnLogger extends Logger {
  /** Resolves once the lines waiting for stderr are written, or after `withinMs`, giving up on the rest. */
  drain(withinMs: number): Promise<void>;
}

/**
 * The bridge's logger: pino, its lines JSON with an ISO `time` and the level's name, or through
 * pino-pretty for a person at a terminal (one line each). An error (`err`) is its type, message and
 * code; its stack and cause only at `debug`, so a missing ORS server is one line to read, not a stack
 * to scroll past. Pretty lines escape control characters as JSON lines do, so text from outside cannot
 * forge a line. On stderr, lines are written without waiting and never block the server: when stderr
 * stops taking them, up to `bufferBytes` wait, the rest are dropped, and a `warn` line counts them once
 * stderr takes lines again; what waits is written when the process exits (unless stderr is stuck then).
 */
export function createLogger(options: LoggerOptions): OwnLogger {
  const stderr = 'bufferBytes' in options ? stderrDestination(options.bufferBytes) : undefined;
  const sink = 'destination' in options ? options.destination : stderr!.stream;
  const destination = options.format === 'pretty' ? prettyLines(sink, options) : sink;
  const logger = pino(
    {
      level: options.level,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: options.level === 'debug' ? stdSerializers.err : briefError },
    },
    destination,
  );
  stderr?.onDropped((count) =>
    logger.warn(
      { dropped_lines: count },
      `${count} log lines were dropped: stderr took none while RUNBRIDGE_LOG_BUFFER_BYTES of them waited`,
    ),
  );
  return Object.assign(logger, { drain: (withinMs: number) => stderr?.drain(withinMs) ?? Promise.resolve() });
}

/** Writes each JSON line pino makes to `sink` as a readable line, its control characters escaped. */
function prettyLines(sink: DestinationStream, options: LoggerOptions): DestinationStream {
  const prettify = prettyFactory({
    colorize: !('destination' in options) && process.stderr.isTTY === true,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // One line each: below `debug` an error is its message at the end of the line, not an object.
    ...(options.level === 'debug'
      ? { ignore: 'pid,hostname' }
      : { ignore: 'pid,hostname,err', messageFormat: withErrorMessage }),
  });
  return { write: (line: string) => sink.write(prettify(escapedLine(JSON.parse(line) as Record<string, unknown>))) };
}

/**
 * A log line with every string and key in it escaped ({@link escapeControls}) — but for the line breaks
 * of an error's stack (its message escaped in it), which `debug` shows as lines of their own, indented
 * under the line.
 */
function escapedLine(line: Record<string, unknown>): Record<string, unknown> {
  const escaped = escapedValue(line) as Record<string, unknown>;
  const { stack, message } = (line.err ?? {}) as { stack?: unknown; message?: unknown };
  if (typeof stack === 'string') {
    const own = typeof message === 'string' && message !== '' ? stack.replace(message, escapeControls(message)) : stack;
    (escaped.err as { stack: string }).stack = escapeControls(own, '\n');
  }
  return escaped;
}

function escapedValue(value: unknown): unknown {
  if (typeof value === 'string') return escapeControls(value);
  if (Array.isArray(value)) return value.map(escapedValue);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [escapeControls(key), escapedValue(inner)]));
}

/** A pretty line's message, then what its error says (unless the message says it already). */
function withErrorMessage(line: Record<string, unknown>, messageKey: string): string {
  const message = String(line[messageKey] ?? '');
  const said = (line.err as { message?: unknown } | undefined)?.message;
  return typeof said === 'string' && !message.includes(said) ? `${message}: ${said}` : message;
}

/** An error as one line tells it: its type, message and code. */
function briefError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = (error as { code?: unknown }).code;
  return { type: error.name, message: error.message, ...(code === undefined ? {} : { code }) };
}
