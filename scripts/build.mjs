// `npm run build` (and `prepack`, so a tarball ships built files and installing it runs no script; and
// `prestart`, so `npm start` serves the current sources): dist/ from the TypeScript
// sources — tsc for the Node entry points and their declarations (tsconfig.build.json), then the
// browser build of runbridge/client, then the chat page (dist/ui/). dist/ is emptied first, so nothing of a removed source ships.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { buildBrowserClient } from './build-browser-client.mjs';
import { buildUi } from './build-ui.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error(
    'build: typescript is not installed; the build needs the dev dependencies (run npm ci without --omit=dev).',
  );
  process.exit(1);
}
rmSync(`${root}/dist`, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
await buildBrowserClient(`${root}/dist/browser/client.js`);
await buildUi(`${root}/dist/ui`);
