import { randomBytes } from 'node:crypto';
import type { Config } from './config/index.js';
import { OrsClient } from './ors/client/ors-client.js';
import type { OrsServer } from './ors/server/create-ors-server.js';
import type { AnyEnvironment } from './ors/server/environment-registry.js';

/** The ORS side of a bridge or a rollout batch: a client, and the built-in server when it is the one in use. */
export interface OrsConnection {
  /** The client the runs use to play their episodes. */
  ors: OrsClient;
  /** Base URL of the ORS server the client talks to. */
  orsUrl: string;
  /** The built-in server started for this connection (the caller closes it), or undefined with `ORS_URL`. */
  orsServer: OrsServer | undefined;
}

/**
 * A client of the ORS server at `config.orsUrl` or, with none configured, of the built-in server
 * (serving `environments`, default the built-in ones) started on a free loopback port. The built-in
 * server takes only requests that bear a secret made for this process and known to its client alone,
 * so no other local process can open sessions on it (docs/security.md). The server and the built-in
 * environments are imported only then: with `ORS_URL`, a rollout's worker thread loads no server.
 */
export async function connectOrs(config: Config, environments?: AnyEnvironment[]): Promise<OrsConnection> {
  let orsServer: OrsServer | undefined;
  let orsUrl = config.orsUrl;
  let bearerToken: string | undefined;
  if (orsUrl === undefined) {
    bearerToken = randomBytes(32).toString('base64url');
    const { createOrsServer } = await import('./ors/server/create-ors-server.js');
    orsServer = createOrsServer({
      environments:
        environments ?? (await import('../adapters/environments/builtin-environments.js')).builtinEnvironments,
      pingIntervalMs: config.orsPingMs,
      accessToken: bearerToken,
      maxSessions: config.orsMaxSessions,
      maxSessionBytes: config.orsMaxSessionBytes,
    });
    orsUrl = await orsServer.listen(0, '127.0.0.1');
  }
  const ors = new OrsClient({
    baseUrl: orsUrl,
    pingIntervalMs: config.orsPingMs,
    callSilenceTimeoutMs: config.orsCallSilenceMs,
    maxAnswerBytes: config.orsMaxAnswerBytes,
    retryBaseDelayMs: config.orsRetryBaseMs,
    ...(bearerToken === undefined ? {} : { bearerToken }),
  });
  return { ors, orsUrl, orsServer };
}
