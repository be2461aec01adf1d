// `npm run build` (and `prepack`, so a tarball ships built files and installing it runs no script; and
// `prestart`, so `npm start` serves the current sources): dist/ from the TypeScript
// sources — tsc for the Node entry points and their declarations (tsconfig.build.json), then the
// browser build of runbridge/client, then the chat page (dist/ui/). dist/ is emptied first, so nothing of a removed source ships.
//
//   node scripts/build.mjs [--if-stale]
//
// --if-stale (`npm start`) builds only when a source is newer than the last build (build-freshness.mjs).
// What a build needs is imported after that check, so a skipped build costs a walk of the sources.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { BUILD_INPUTS, buildIsFresh, stampBuild } from './build-freshness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
if (process.argv.includes('--if-stale') && buildIsFresh(root)) {
  console.error(
    `build: dist/ is newer than its sources (${BUILD_INPUTS.join(', ')}), so it is not rebuilt; ` +
      '`npm run build` rebuilds it all the same.',
  );
  process.exit(0);
}
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error(
    'build: typescript is not installed; the build needs the dev dependencies (run npm ci without --omit=dev).',
  );
  process.exit(1);
}
const startedMs = Date.now();
rmSync(`${root}/dist`, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
const { buildBrowserClient } = await import('./build-browser-client.mjs');
const { buildUi } = await import('./build-ui.mjs');
await buildBrowserClient(`${root}/dist/browser/client.js`);
await buildUi(`${root}/dist/ui`);
stampBuild(root, startedMs);
