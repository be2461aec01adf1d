import { connectionCeiling, streamHeadroom } from '../config/connection-caps.js';
import { ConfigError } from '../config/index.js';

/** How many connections and event streams the server holds at most (docs/security.md, "Caps"). */
export interface ConnectionLimits {
  /** `server.maxConnections`: past it Node closes new connections at once (unbounded: `Infinity`). */
  maxConnections: number;
  /** Open event streams (SSE answers) in total; past it a new one is a 429. */
  maxStreams: number;
  /** Open event streams of one key (or, without keys, of the one local owner). */
  maxStreamsPerKey: number;
}

/**
 * The connection and stream caps of the settings (their defaults are the settings table's), checked
 * against an open-file limit of `fileLimit`: connections that could use up the descriptors the bridge's
 * own ORS and model connections need, or streams that leave no room for other requests and `/health`,
 * stop start-up with a `ConfigError`, as does a limit too small to serve anything.
 */
export function connectionLimits(settings: ConnectionLimits, fileLimit: number | undefined): ConnectionLimits {
  const problems: string[] = [];
  const ceiling = connectionCeiling(fileLimit);
  if (ceiling < 16) {
    problems.push(`the open-file limit is ${fileLimit} (ulimit -n); raise it to at least 1024 to serve anything`);
  }
  let { maxConnections } = settings;
  if (maxConnections > ceiling) {
    problems.push(
      `RUNBRIDGE_MAX_CONNECTIONS=${maxConnections} would let clients use up the open-file limit of ` +
        `${fileLimit} (ulimit -n), which also holds the ORS and model connections: use at most ${ceiling}, or raise the limit`,
    );
    maxConnections = ceiling;
  }
  const room = Math.max(1, maxConnections - streamHeadroom(maxConnections));
  if (settings.maxStreams > room) {
    problems.push(
      `RUNBRIDGE_MAX_STREAMS=${settings.maxStreams} leaves no room below the connection limit of ${maxConnections} ` +
        `for other requests and /health: use at most ${room}`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const { maxStreams } = settings;
  return { maxConnections, maxStreams, maxStreamsPerKey: Math.min(settings.maxStreamsPerKey, maxStreams) };
}
