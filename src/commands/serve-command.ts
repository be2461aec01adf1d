import { loadConfig } from '../config/index.js';
import { startRunbridge } from '../main.js';
import { redactedUrl } from '../store/open-run-store.js';
import { nextStopSignal } from './on-stop-signal.js';
import { parseFlags } from './parse-flags.js';

const HELP = `runbridge serve — start the HTTP API

Configuration comes from environment variables (see docs/configuration.md); flags override two of them:
  --port N     listen port (PORT, default 8080)
  --host H     listen address (HOST, default 127.0.0.1)`;

/** `runbridge serve`: starts the bridge, prints where and how to try it, drains on SIGTERM/SIGINT. */
export async function serveCommand(args: string[]): Promise<number> {
  const { values } = parseFlags({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
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
  });
  if (config.redisUrl !== undefined) {
    // Start-up waits for Redis (up to 30 s): say so at once, rather than print nothing meanwhile.
    process.stdout.write(`runbridge: connecting to Redis at ${redactedUrl(config.redisUrl)}…\n`);
  }
  const bridge = await startRunbridge({ config });
  const auth = config.apiKeys.length > 0 ? ` -H 'Authorization: Bearer <key>'` : '';
  // The example names the environment requests play by default, so that copying it works.
  const body = bridge.defaultEnv === undefined ? '{}' : JSON.stringify({ env: bridge.defaultEnv });
  process.stdout.write(
    [
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
    ].join('\n'),
  );

  const signal = await nextStopSignal();
  process.stdout.write(
    `${signal}: draining (up to ${config.shutdownGraceMs / 1000}s; send SIGINT or SIGTERM again to exit at once)\n`,
  );
  await bridge.shutdown();
  process.stdout.write('runbridge stopped\n');
  return 0;
}
