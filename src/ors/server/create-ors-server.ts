import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { discoveryRoutes } from './discovery-routes.js';
import { type AnyEnvironment, EnvironmentRegistry } from './environment-registry.js';
import { orsErrorMiddleware } from './ors-error-middleware.js';
import { describeError } from './ors-http-errors.js';
import { sessionIdOf } from './request-parts.js';
import { requireAccessToken } from './require-access-token.js';
import { sessionRoutes } from './session-routes.js';
import { SessionStore } from './session-store.js';
import { ToolTaskStore } from './tool-task-store.js';

/** Settings of {@link createOrsServer}: the environments to serve, and timings that rarely need changing. */
export interface OrsServerOptions {
  /** The environments to serve (written with `defineEnvironment`); the first is the default of `/create`. */
  environments: AnyEnvironment[];
  /** Period of the `: ping` comment during a call; default 10_000. */
  pingIntervalMs?: number;
  /** Sessions with no request and no running tool for this long are reaped; default 900_000. */
  sessionIdleMs?: number;
  /** How long finished tool results stay for reconnects; default 60_000. */
  resultCacheMs?: number;
  /** Longest `data` of one `chunk`/`end` frame of a call, in UTF-16 code units; default 4096. */
  chunkSize?: number;
  /** Where failures no client hears of go (setup, teardown, tool crashes, 500s); default: one line on stderr. */
  logError?: (message: string, error: unknown) => void;
  /** Sessions held at once; `/create` past it answers 429 with `Retry-After`; default 1024. */
  maxSessions?: number;
  /** Request bytes one session may receive in all (`/create` and its calls); past it 413; default 64 MiB. */
  maxSessionBytes?: number;
  /**
   * When set, every request must bear `Authorization: Bearer <accessToken>` (else 401): the bridge
   * starts its built-in server with a per-process secret, so no other local process can use the port.
   */
  accessToken?: string;
}

/** A running (or ready to run) ORS server made by {@link createOrsServer}. */
export interface OrsServer {
  /** Starts listening; resolves to the base URL, e.g. http://127.0.0.1:41234. Defaults: port 0 (any free one), host 127.0.0.1. Throws when already listening or closed. */
  listen(port?: number, host?: string): Promise<string>;
  /** Stops listening, aborts running tools, tears down every session, clears every timer. Idempotent. */
  close(): Promise<void>;
  /** Ids of sessions that exist (created and not deleted) — tests use it to prove no session leaked. */
  activeSessionIds(): string[];
  /** Raw Node request handler, for embedding in a server of one's own (which one then closes oneself). */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
}

/**
 * An ORS server for `environments`: the whole ORS HTTP API with the reference server's observed
 * behaviour (docs/ors.md), served by Koa, with caps on sessions and on the bytes each receives.
 * Throws a `TypeError` at once for an environment definition it could not serve, or an option that
 * is not a positive number.
 */
export function createOrsServer(options: OrsServerOptions): OrsServer {
  const registry = new EnvironmentRegistry(options.environments);
  const pingIntervalMs = positive('pingIntervalMs', options.pingIntervalMs, 10_000);
  const sessionIdleMs = positive('sessionIdleMs', options.sessionIdleMs, 900_000);
  const resultCacheMs = positive('resultCacheMs', options.resultCacheMs, 60_000);
  const chunkSize = options.chunkSize ?? 4096;
  if (!Number.isInteger(chunkSize) || chunkSize < 2)
    throw new TypeError(`chunkSize must be an integer of at least 2, got ${chunkSize}.`);
  const logError = options.logError ?? logToStderr;
  const maxSessions = positiveInteger('maxSessions', options.maxSessions, 1024);
  const maxSessionBytes = positiveInteger('maxSessionBytes', options.maxSessionBytes, 64 * 1024 * 1024);

  const tasks = new ToolTaskStore({ resultCacheMs });
  const sessions = new SessionStore({
    idleMs: sessionIdleMs,
    maxSessions,
    maxSessionBytes,
    isBusy: (sessionId) => tasks.hasRunning(sessionId),
    onEnd: (sessionId, message) => tasks.dropSession(sessionId, message),
    logError,
  });

  const app = new Koa();
  app.on('error', (error: unknown) => logError('Koa reported an error', error));
  app.use(orsErrorMiddleware(logError));
  if (options.accessToken !== undefined) app.use(requireAccessToken(options.accessToken));
  // Any request naming a session is activity, before and after it is handled (a long wait for setup counts).
  app.use(async (ctx, next) => {
    const sid = sessionIdOf(ctx);
    if (sid !== undefined) sessions.touch(sid);
    try {
      await next();
    } finally {
      if (sid !== undefined) sessions.touch(sid);
    }
  });
  for (const router of [
    discoveryRoutes(registry),
    sessionRoutes({ registry, sessions, tasks, stream: { pingIntervalMs, chunkSize }, logError }),
  ]) {
    app.use(router.routes());
    app.use(router.allowedMethods());
  }
  const callback = app.callback();
  const inFlight = new Set<ServerResponse>();
  let drained: (() => void) | undefined;
  let closing: Promise<void> | undefined;
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    // A keep-alive connection may bring another request while we shut down; it must not stay open after.
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => {
      inFlight.delete(res);
      if (inFlight.size === 0) drained?.();
    });
    // Koa's callback settles every request itself (its error handling ends the response), so nothing is left to await.
    void callback(req, res);
  };
  /** Resolves once every response under way has ended. */
  const allResponsesEnded = () =>
    inFlight.size === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          drained = resolve;
        });

  let server: Server | undefined;

  return {
    handler,
    activeSessionIds: () => sessions.ids(),

    async listen(port = 0, host = '127.0.0.1') {
      if (closing) throw new Error('This ORS server was closed; create a new one to listen again.');
      if (server) throw new Error('This ORS server is already listening; close it first.');
      const created = createServer(handler);
      server = created;
      try {
        await new Promise<void>((resolve, reject) => {
          created.once('error', reject);
          // Its sessions live in this process: in a worker of `runbridge serve --workers` the port must not be
          // shared with the other workers' servers, as node:cluster does by default.
          created.listen({ port, host, exclusive: true }, () => {
            created.off('error', reject);
            resolve();
          });
        });
      } catch (error) {
        server = undefined;
        throw error;
      }
      const address = created.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      return `http://${shownHost}:${address.port}`;
    },

    close() {
      closing ??= (async () => {
        const stopped = server === undefined ? Promise.resolve() : stopListening(server);
        // Ending the sessions ends everything that waits on them: calls in progress get `event: error`,
        // requests waiting for setup get 410. What is left in flight then finishes on its own.
        await sessions.close();
        tasks.close('The ORS server shut down.');
        await allResponsesEnded();
        // Every response has ended, so what remains are keep-alive connections: idle ones, and ones a
        // client is reusing for a request we would refuse anyway. Either would hold `server.close`.
        server?.closeAllConnections();
        await stopped;
      })();
      return closing;
    },
  };
}

/** Stops accepting connections; resolves once every open one has ended (finished responses free theirs). */
function stopListening(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new TypeError(`${name} must be a positive number of milliseconds, got ${value}.`);
  return value;
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new TypeError(`${name} must be a positive integer, got ${value}.`);
  return value;
}

function logToStderr(message: string, error: unknown): void {
  process.stderr.write(`ors-server: ${message}: ${describeError(error)}\n`);
}
