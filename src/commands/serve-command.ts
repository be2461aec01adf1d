import { loadConfig } from '../config/index.js';
import { startRunbridge } from '../main.js';
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
  const bridge = await startRunbridge({ config });
  const auth = config.apiKeys.length > 0 ? ` -H 'Authorization: Bearer <key>'` : '';
  process.stdout.write(
    [
      `runbridge listening on ${bridge.url}`,
      `  ORS server: ${bridge.orsUrl}${bridge.orsServer ? ' (built-in: arith, workspace)' : ''}`,
      `  default model: ${config.defaultModel}`,
      '',
      'Try it:',
      `  curl -s ${bridge.url}/v1/runs${auth} -H 'Content-Type: application/json' -d '{"env":"arith"}'`,
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
