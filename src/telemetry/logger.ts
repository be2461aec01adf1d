/** Fields of a log line besides its message: `run_id`, `code`, `err` (an error), … — never a secret or a body. */
export type LogFields = Record<string, unknown>;

/** One level's method: a line with fields, or a line of text alone. */
export interface LogMethod {
  (fields: LogFields, message: string): void;
  (message: string): void;
}

/**
 * Where the bridge writes what it does (docs/operations.md#logs): pino's shape, so pino's logger is
 * one, without the rest of the bridge depending on pino's types. An error goes in the `err` field.
 */
export interface Logger {
  error: LogMethod;
  warn: LogMethod;
  info: LogMethod;
  debug: LogMethod;
  /** A logger whose every line carries `bindings` too (a run's lines carry its `run_id`). */
  child(bindings: LogFields): Logger;
}

const nothing: LogMethod = () => undefined;

/** A logger that writes nothing (tests, embedding, and the one-off commands without `--verbose`). */
export const silentLogger: Logger = {
  error: nothing,
  warn: nothing,
  info: nothing,
  debug: nothing,
  child: () => silentLogger,
};
