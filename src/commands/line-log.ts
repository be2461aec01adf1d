import { inspect } from 'node:util';

/** Where the bridge's operational messages go: a message, and the error behind it when there is one. */
export type LogLine = (message: string, error?: unknown) => void;

/**
 * A log for a person at a terminal: one line per message — the message, then what the error says — on
 * stderr. The whole error (its stack and cause) only when `debug` (`RUNBRIDGE_LOG_LEVEL=debug`, or
 * `--verbose`): a missing ORS server is one line to read, not a stack to scroll past.
 */
export function lineLog(debug: boolean, write: (text: string) => void = (text) => process.stderr.write(text)): LogLine {
  return (message, error) => {
    if (error === undefined) return write(`${message}\n`);
    if (debug) return write(`${message}\n${inspect(error, { depth: 4 })}\n`);
    const said = error instanceof Error ? error.message : String(error);
    write(message.includes(said) ? `${message}\n` : `${message} ${said}\n`);
  };
}
