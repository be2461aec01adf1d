import cluster from 'node:cluster';
import { ConfigError, loadConfig } from '../config/index.js';
import { startRunbridge } from '../main.js';
import { redactedUrl } from '../store/open-run-store.js';
import { createLogger, LOG_DRAIN_MS } from '../telemetry/create-logger.js';
import { nextStopSignal } from './on-stop-signal.js';
import { parseFlags } from './parse-flags.js';
import { drainRequested, reportListening, runServeCluster } from './serve-cluster.js';
import { workerSharedMetrics } from './worker-shared-metrics.js';

const HELP = `runbridge serve — start the HTTP API

Configuration comes from environment variables (see docs/configuration.md); flags override three of them:
  --port N      listen port (PORT, default 8080)
  --host H      listen address (HOST, default 127.0.0.1)
  --workers N   processes sharing the port (RUNBRIDGE_WORKERS, default 1); above 1 needs RUNBRIDGE_REDIS_URL`;

/** `runbridge serve`: starts the bridge, prints where and how to try it, drains on SIGTERM/SIGINT. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseFlags({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      workers: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const config = loadConfig({
    ...process.env,
    ...(values.port ? { PORT: values.port } : {}),
    ...(values.host ? { HOST: values.host } : {}),
    ...(values.workers ? { RUNBRIDGE_WORKERS: values.workers } : {}),
  });
  if (config.workers > 1 && config.redisUrl === undefined) {
    throw new ConfigError([
      `RUNBRIDGE_WORKERS=${config.workers} (--workers) needs RUNBRIDGE_REDIS_URL: runs kept in one process's memory ` +
        'cannot be seen by the other workers. Set RUNBRIDGE_REDIS_URL, or serve with --workers 1.',
    ]);
  }
  const inCluster = config.workers > 1;
  if (config.redisUrl !== undefined && cluster.isPrimary) {
    // Start-up waits for Redis (up to 30 s): say so at once, rather than print nothing meanwhile.
    process.stdout.write(`runbridge: connecting to Redis at ${redactedUrl(config.redisUrl)}…\n`);
  }
  if (inCluster && cluster.isPrimary) {
    // The primary's own events (its workers' starts and exits) go to the log its workers write.
    const log = createLogger({ level: config.logLevel, format: config.logFormat, bufferBytes: config.logBufferBytes });
    const code = await runServeCluster(config, (text) => process.stdout.write(text), log);
    await log.drain(LOG_DRAIN_MS);
    return code;
  }
  // In a worker of the cluster the primary speaks for all: it prints one banner and the shutdown lines.
  const say = inCluster ? () => undefined : (text: string) => process.stdout.write(text);
  // In a worker, /metrics answers for every worker: the primary gathers their metrics into one page.
  const bridge = await startRunbridge({ config, ...(inCluster ? { sharedMetrics: workerSharedMetrics() } : {}) });
  const auth = config.apiKeys.length > 0 ? ` -H 'Authorization: Bearer <key>'` : '';
  // The example names the environment requests play by default, so that copying it works.
  const body = bridge.defaultEnv === undefined ? '{}' : JSON.stringify({ env: bridge.defaultEnv });
  const banner = [
    `runbridge listening on ${bridge.url}`,
    `  ORS server: ${bridge.orsUrl}${bridge.orsServer ? ' (built-in: arith, workspace)' : ''}`,
    `  default environment: ${bridge.defaultEnv ?? '(chosen once the ORS server answers)'}`,
    `  default model: ${config.defaultModel}`,
    `  runs kept: ${config.redisUrl === undefined ? 'in this process (memory)' : `in Redis at ${redactedUrl(config.redisUrl)}`}`,
    '',
    'Try it:',
    `  curl -s ${bridge.url}/v1/runs${auth} -H 'Content-Type: application/json' -d '${body}'`,
    `  curl -N ${bridge.url}/v1/runs/<run_id>/events${auth}`,
    '',
  ].join('\n');
  if (inCluster) reportListening(banner);
  else say(banner);

  // A worker drains at its own first signal (a terminal's Ctrl-C reaches the whole group) or when the primary asks.
  const signal = await (inCluster ? Promise.race([nextStopSignal(), drainRequested()]) : nextStopSignal());
  say(`${signal}: draining (up to ${config.shutdownGraceMs / 1000}s; send SIGINT or SIGTERM again to exit at once)\n`);
  await bridge.shutdown();
  say('runbridge stopped\n');
  // The channel to the primary would keep a worker alive.
  if (inCluster) process.disconnect?.();
  return 0;
}
