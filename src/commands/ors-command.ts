import { z } from 'zod';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOrsServer } from '../ors/server/create-ors-server.js';
import type { AnyEnvironment } from '../ors/server/environment-registry.js';
import { nextStopSignal } from './on-stop-signal.js';
import { parseFlags } from './parse-flags.js';

/**
 * Not the reference server's 8080: that is `runbridge serve`'s, and the two are often run side by
 * side (nor 8081, the browser example's).
 */
export const DEFAULT_ORS_PORT = 8090;

const USAGE = `runbridge ors serve — serve the built-in ORS environments over the ORS HTTP API

Usage:
  runbridge ors serve [--port N] [--host H] [--ping-seconds S] [--max-sessions N] [--max-session-bytes N]

Options:
  --port N                listen port, 0 for any free one (default ${DEFAULT_ORS_PORT}; runbridge serve has 8080)
  --host H                listen address (default 127.0.0.1; the server has no auth, so expose it deliberately)
  --ping-seconds S        keep-alive comment period during a tool call (default 10)
  --max-sessions N        sessions held at once; /create past it answers 429 (default 1024)
  --max-session-bytes N   request bytes one session may receive; past it 413 (default 67108864, 64 MiB)
  --help                  show this text

Stops on SIGINT or SIGTERM, deleting every session (each environment's teardown runs).`;

const FlagsSchema = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(DEFAULT_ORS_PORT),
  host: z.string().trim().min(1).default('127.0.0.1'),
  'ping-seconds': z.coerce.number().positive().finite().default(10),
  'max-sessions': z.coerce.number().int().positive().optional(),
  'max-session-bytes': z.coerce.number().int().positive().optional(),
});

/** What {@link runOrsCommand} talks to; {@link orsCommand} passes the process's own. */
export interface OrsCommandIo {
  environments: AnyEnvironment[];
  stdout(text: string): void;
  stderr(text: string): void;
  /** Resolves with the name of what asked the server to stop (a signal name). */
  waitForStop(): Promise<string>;
}

/**
 * `runbridge ors serve [--port N] [--host H] [--ping-seconds S] [--max-sessions N] [--max-session-bytes N]`:
 * serves the built-in environments,
 * prints the URL, and on SIGINT/SIGTERM closes every session and exits 0. A bad flag, value or
 * sub-command prints what is wrong and the usage, and exits 2.
 */
export function orsCommand(args: string[]): Promise<number> {
  return runOrsCommand(args, {
    environments: builtinEnvironments,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    waitForStop: nextStopSignal,
  });
}

/** {@link orsCommand} with its environments, output and stop trigger passed in (tests serve their own). */
export async function runOrsCommand(args: string[], io: OrsCommandIo): Promise<number> {
  const usageError = (message: string) => {
    io.stderr(`runbridge ors: ${message}\n\n${USAGE}\n`);
    return 2;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args);
  } catch (error) {
    return usageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return 0;
  }
  if (positionals[0] !== 'serve' || positionals.length > 1) {
    return usageError(
      positionals.length === 0
        ? 'say what to do: "serve".'
        : `unknown arguments "${positionals.join(' ')}"; the only sub-command is "serve".`,
    );
  }
  const flags = FlagsSchema.safeParse(values);
  if (!flags.success) {
    return usageError(flags.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('; '));
  }

  const server = createOrsServer({
    environments: io.environments,
    pingIntervalMs: flags.data['ping-seconds'] * 1000,
    ...(flags.data['max-sessions'] === undefined ? {} : { maxSessions: flags.data['max-sessions'] }),
    ...(flags.data['max-session-bytes'] === undefined ? {} : { maxSessionBytes: flags.data['max-session-bytes'] }),
  });
  try {
    const url = await server.listen(flags.data.port, flags.data.host);
    // Only now: a signal before this point finds no session to close, and its default (exit) is right.
    const stopped = io.waitForStop();
    io.stdout(
      `ORS server listening on ${url}\n  environments: ${io.environments.map((environment) => environment.name).join(', ')}\n`,
    );
    const reason = await stopped;
    io.stdout(`${reason}: closing ${server.activeSessionIds().length} session(s)\n`);
  } finally {
    await server.close();
  }
  io.stdout('ORS server stopped\n');
  return 0;
}

function parse(args: string[]) {
  return parseFlags({
    args,
    allowPositionals: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'ping-seconds': { type: 'string' },
      'max-sessions': { type: 'string' },
      'max-session-bytes': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
}
