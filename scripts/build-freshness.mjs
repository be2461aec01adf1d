// Whether dist/ was built from the sources as they are now, so `npm start` can skip a build that would
// write the same files (25 s on a two-core machine). `scripts/build.mjs` stamps dist/ when a build ends,
// dated from when it began, so a source edited while the build ran still counts as newer.
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the build reads, besides node_modules (whose changes come with package-lock.json). */
export const BUILD_INPUTS = [
  'src',
  'adapters',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
  'scripts/build-browser-client.mjs',
  'scripts/build-ui.mjs',
  'scripts/build-freshness.mjs',
];

/** The stamp a finished build leaves in dist/. */
export const BUILD_STAMP = 'dist/.built';

/**
 * The newest modification time (ms) among `root`'s build inputs. Folders count too: removing or renaming
 * a source changes its folder's time, and dist/ must then lose the file built from it.
 */
export function newestInputMs(root) {
  let newest = 0;
  const visit = (path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return;
    newest = Math.max(newest, stat.mtimeMs);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  for (const input of BUILD_INPUTS) visit(join(root, input));
  return newest;
}

/** True when `root`'s dist/ was stamped by a build that began after its newest input last changed. */
export function buildIsFresh(root) {
  const stamp = statSync(join(root, BUILD_STAMP), { throwIfNoEntry: false });
  return stamp !== undefined && stamp.mtimeMs > newestInputMs(root);
}

/** Stamps `root`'s dist/ as built from the sources as they were at `startedMs`. */
export function stampBuild(root, startedMs) {
  const path = join(root, BUILD_STAMP);
  if (!existsSync(join(root, 'dist'))) return;
  writeFileSync(path, 'The time of this file is when the build that wrote dist/ began.\n');
  utimesSync(path, startedMs / 1000, startedMs / 1000);
}
