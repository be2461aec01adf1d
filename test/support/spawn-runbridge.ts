import { type ChildProcessByStdio, type SpawnOptions, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiledCli } from './compiled-sources.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What makes `node` run a script of ours from the current TypeScript sources, never a stale build
 * in dist/: tsx as a loader, and the repository's tsconfig whatever the working directory — its
 * `paths` resolve `runbridge`, `runbridge/client` and `runbridge/ors` to `src/`, so an example that
 * imports the package by name runs the sources too. Use it for a child process that runs a script
 * (an example); the command itself starts from {@link runbridgeArgv}.
 */
export const FROM_SOURCES = {
  execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href],
  env: { TSX_TSCONFIG_PATH: `${ROOT}tsconfig.json` },
} as const;

/**
 * `node`'s arguments for `runbridge <args>` from the sources as they are now, compiled once for
 * every process that starts one ({@link compiledCli}): what `process.execPath` runs.
 */
export function runbridgeArgv(args: readonly string[]): string[] {
  return [compiledCli(), ...args];
}

/**
 * Starts `runbridge <args>` as a child process from the sources ({@link runbridgeArgv}), stdin
 * ignored and stdout/stderr piped. `options.env` replaces the environment as in `spawn` (default
 * this process's). The caller stops the child.
 */
export function spawnRunbridge(
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> = {},
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, runbridgeArgv(args), { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
}
