/**
 * How many connections and event streams the server holds (docs/security.md, "Caps"). Every connection
 * holds a file descriptor, and so do the bridge's own connections to the ORS server and the model
 * vendors: connections stop a quarter (at least 256) below the open-file limit, and event streams a
 * tenth (at least 8) below the connections, so a crowd of idle streams can neither exhaust the
 * descriptors nor keep `/health` and the API out.
 */

/** The most event streams by default, however many files the process may open. */
const DEFAULT_MAX_STREAMS = 10_000;

/** The most connections under an open-file limit of `fileLimit`; unbounded without one. */
export function connectionCeiling(fileLimit: number | undefined): number {
  return fileLimit === undefined ? Number.POSITIVE_INFINITY : fileLimit - Math.max(256, Math.ceil(fileLimit / 4));
}

/** The connections of `maxConnections` no event stream may take: what `/health` and the API get in by. */
export function streamHeadroom(maxConnections: number): number {
  return Number.isFinite(maxConnections) ? Math.max(8, Math.ceil(maxConnections / 10)) : 0;
}

/** The default cap of event streams under `maxConnections`. */
export function defaultMaxStreams(maxConnections: number): number {
  return Math.max(1, Math.min(DEFAULT_MAX_STREAMS, maxConnections - streamHeadroom(maxConnections)));
}
