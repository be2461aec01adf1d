/**
 * The `runbridge` command line. Each command lives in `src/commands/` and returns an exit code.
 */
const USAGE = `runbridge — drive an LLM through ORS episodes and stream every step as run events

Usage:
  runbridge serve                  start the HTTP server (config from environment variables)
  runbridge run [options]          start one run and render its events live
  runbridge rollout [options]      generate RL rollouts as JSONL trajectories
  runbridge ors serve [--port N]   serve the built-in ORS environments
  runbridge help                   show this text

Run "runbridge <command> --help" for a command's options.`;

type Command = (args: string[]) => Promise<number>;

/** By name; a Map, so that `runbridge constructor` is an unknown command, not `Object`. */
const commands = new Map<string, () => Promise<Command>>([
  ['serve', async () => (await import('./commands/serve-command.js')).serveCommand],
  ['run', async () => (await import('./commands/run-command.js')).runCommand],
  ['rollout', async () => (await import('./commands/rollout-command.js')).rolloutCommand],
  ['ors', async () => (await import('./commands/ors-command.js')).orsCommand],
]);

/** Runs the command named by `argv[0]` and resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return name === undefined ? 1 : 0;
  }
  const load = commands.get(name);
  if (!load) {
    process.stderr.write(`runbridge: unknown command "${name}".\n\n${USAGE}\n`);
    return 2;
  }
  try {
    return await (await load())(rest);
  } catch (error) {
    process.stderr.write(`runbridge ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
