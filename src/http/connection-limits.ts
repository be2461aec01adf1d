import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ConfigError } from '../config/index.js';

/** How many connections and event streams the server holds at most (docs/security.md, "Caps"). */
export interface ConnectionLimits {
  /** `server.maxConnections`: past it Node closes new connections at once. */
  maxConnections: number;
  /** Open event streams (SSE answers) in total; past it a new one is a 429. */
  maxStreams: number;
  /** Open event streams of one key (or, without keys, of the one local owner). */
  maxStreamsPerKey: number;
}

/** The settings behind {@link ConnectionLimits}; absent ones are derived from the open-file limit. */
export interface ConnectionSettings {
  maxConnections: number | undefined;
  maxStreams: number | undefined;
  maxStreamsPerKey: number;
}

/** The most event streams by default, however many files the process may open. */
const DEFAULT_MAX_STREAMS = 10_000;

/**
 * The process's soft limit of open files (`ulimit -n`), or undefined when there is none or it cannot
 * be read. Linux shows it in `/proc/self/limits`; elsewhere a POSIX shell tells.
 */
export function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (line) return parseLimit(line[1]!);
  } catch {
    // Not Linux: ask a shell below.
  }
  try {
    return parseLimit(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2000 }).trim());
  } catch {
    return undefined;
  }
}

function parseLimit(text: string): number | undefined {
  const limit = Number(text);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}

/**
 * The connection and stream caps for `settings` under an open-file limit of `fileLimit`. Every
 * connection holds a file descriptor, and so do the bridge's own connections to the ORS server and
 * the model vendors: connections stop at three quarters of the limit (keeping at least 256 back),
 * and event streams at nine tenths of the connections (at most 10,000), so a crowd of idle streams
 * can neither exhaust the descriptors nor keep `/health` and the API out. Settings that would break
 * either rule stop start-up with a `ConfigError`.
 */
export function connectionLimits(settings: ConnectionSettings, fileLimit: number | undefined): ConnectionLimits {
  const problems: string[] = [];
  const ceiling = fileLimit === undefined ? undefined : fileLimit - Math.max(256, Math.ceil(fileLimit / 4));
  if (ceiling !== undefined && ceiling < 16) {
    problems.push(`the open-file limit is ${fileLimit} (ulimit -n); raise it to at least 1024 to serve anything`);
  }
  let maxConnections = settings.maxConnections ?? ceiling ?? Number.POSITIVE_INFINITY;
  if (settings.maxConnections !== undefined && ceiling !== undefined && settings.maxConnections > ceiling) {
    problems.push(
      `RUNBRIDGE_MAX_CONNECTIONS=${settings.maxConnections} would let clients use up the open-file limit of ` +
        `${fileLimit} (ulimit -n), which also holds the ORS and model connections: use at most ${ceiling}, or raise the limit`,
    );
    maxConnections = ceiling;
  }
  const headroom = Number.isFinite(maxConnections) ? Math.max(8, Math.ceil(maxConnections / 10)) : 0;
  const maxStreams = settings.maxStreams ?? Math.max(1, Math.min(DEFAULT_MAX_STREAMS, maxConnections - headroom));
  if (settings.maxStreams !== undefined && settings.maxStreams > maxConnections - headroom) {
    problems.push(
      `RUNBRIDGE_MAX_STREAMS=${settings.maxStreams} leaves no room below the connection limit of ${maxConnections} ` +
        `for other requests and /health: use at most ${Math.max(1, maxConnections - headroom)}`,
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { maxConnections, maxStreams, maxStreamsPerKey: Math.min(settings.maxStreamsPerKey, maxStreams) };
}
