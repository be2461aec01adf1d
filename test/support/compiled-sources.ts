import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, version as esbuildVersion } from 'esbuild';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
/** Inside the repository, so the compiled files find its node_modules as the sources do. */
const CACHE = 'node_modules/.cache/runbridge-tests';
/** What a child process runs: `src/` and `adapters/` (the chat page's sources are built for browsers, not here), and the CLI's entry. */
const INPUTS = ['src', 'adapters'];
const ENTRY = 'test/support/runbridge-from-sources.ts';
/** Builds of earlier sources kept beside the current one (another checkout's run, a file edited mid-run). */
const KEPT = 3;

/**
 * The file that runs `runbridge` from the sources as they are now, compiled to JavaScript: each
 * TypeScript file transpiled by esbuild (as tsx does it, one file to one file, so worker threads and
 * `import.meta.url` find their neighbours), into a folder named by a hash of every input's path and
 * text, the compiler options and esbuild's version. A child process started from it never runs a
 * stale build, and skips the loader thread tsx would run in it: `runbridge serve` reached listening
 * on about half the CPU.
 *
 * The first caller for a given state of the sources builds it (about half a second); every other
 * process and worker reuses it. Two builders at once each write their own folder and the first
 * rename wins, so a reader never sees half a build. `root` is the repository (another only in this
 * module's own test).
 */
export function compiledCli(root = REPOSITORY): string {
  const cache = join(root, CACHE);
  const files = [...INPUTS.flatMap((folder) => typeScriptUnder(root, folder)), ENTRY];
  const hash = createHash('sha256').update(`esbuild ${esbuildVersion}\0`);
  for (const file of [...files, 'tsconfig.json']) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  const dir = join(cache, hash.digest('hex').slice(0, 16));
  const cli = join(dir, ENTRY.replace(/\.ts$/, '.js'));
  if (existsSync(cli)) return cli;

  const building = `${dir}.${process.pid}.${Date.now()}.partial`;
  buildSync({
    absWorkingDir: root,
    entryPoints: files,
    outdir: building,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  try {
    renameSync(building, dir);
  } catch {
    // Another process finished the same build first: theirs is used and ours goes.
    rmSync(building, { recursive: true, force: true });
  }
  forgetOldBuilds(cache, dir);
  return cli;
}

function typeScriptUnder(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith('src/ui/'))
    .sort();
}

/** Removes all but the {@link KEPT} newest other builds in `cache`, and what builders that died left half-written. */
function forgetOldBuilds(cache: string, current: string): void {
  const names = readdirSync(cache);
  for (const name of names) {
    const builder = /\.(\d+)\.\d+\.partial$/.exec(name)?.[1];
    if (builder !== undefined && !isAlive(Number(builder))) rmSync(join(cache, name), { recursive: true, force: true });
  }
  const builds = names
    .filter((name) => !name.endsWith('.partial'))
    .map((name) => join(cache, name))
    .filter((dir) => dir !== current)
    // A build another process removes meanwhile sorts last, as the oldest.
    .sort((a, b) => builtAt(b) - builtAt(a));
  for (const old of builds.slice(KEPT)) rmSync(old, { recursive: true, force: true });
}

function builtAt(dir: string): number {
  return statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it lives, as another user's.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
