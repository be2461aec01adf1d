import { createLogger } from '../../src/telemetry/create-logger.js';
import type { Logger } from '../../src/telemetry/logger.js';

/** One line of the bridge's JSON log. */
export interface LogLine {
  level: string;
  msg: string;
  [field: string]: unknown;
}

/** A real logger (pino, JSON) writing into memory, and what it wrote. */
export interface CapturedLog {
  logger: Logger;
  /** Everything written, as written. */
  text(): string;
  /** Every line, parsed. */
  lines(): LogLine[];
  /** The message of every line. */
  messages(): string[];
}

/** A {@link CapturedLog} that keeps every line from `level` up. */
export function captureLog(level: 'debug' | 'info' | 'warn' | 'error' = 'debug'): CapturedLog {
  const chunks: string[] = [];
  const logger = createLogger({ level, format: 'json', destination: { write: (chunk: string) => chunks.push(chunk) } });
  const lines = () =>
    chunks
      .join('')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as LogLine);
  return { logger, text: () => chunks.join(''), lines, messages: () => lines().map((line) => line.msg) };
}
