import { type ChildProcessByStdio, type SpawnOptions, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI_FROM_SOURCES = fileURLToPath(new URL('./runbridge-from-sources.ts', import.meta.url));

/**
 * What makes `node` run the current TypeScript sources, never a stale build in dist/: tsx as a
 * loader, and the repository's tsconfig whatever the working directory — its `paths` resolve
 * `runbridge`, `runbridge/client` and `runbridge/ors` to `src/`, so an example that imports the
 * package by name runs the sources too. Use it for any child process that runs our code.
 */
export const FROM_SOURCES = {
  execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href],
  env: { TSX_TSCONFIG_PATH: `${ROOT}tsconfig.json` },
} as const;

/**
 * Starts `runbridge <args>` as a child process from the sources (see {@link FROM_SOURCES}), stdin
 * ignored and stdout/stderr piped. `options.env` replaces the environment as in `spawn` (default
 * this process's). The caller stops the child.
 */
export function spawnRunbridge(
  args: readonly string[],
  options: Omit<SpawnOptions, 'stdio'> = {},
): ChildProcessByStdio<null, Readable, Readable> {
  return spawn(process.execPath, [...FROM_SOURCES.execArgv, CLI_FROM_SOURCES, ...args], {
    ...options,
    env: { ...(options.env ?? process.env), ...FROM_SOURCES.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
