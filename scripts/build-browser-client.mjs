// The browser build of runbridge/client: one ES module with eventsource-parser inside, so a static
// page can load it with <script type="module"> and no bundler. esbuild's `browser` platform fails the
// build on any `node:` import, so server code cannot slip into the client unnoticed.
//
//   node scripts/build-browser-client.mjs [OUTFILE]     # default dist/browser/client.js
//
// Beside OUTFILE it writes OUTFILE.meta.json, esbuild's list of the modules that went in.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles src/client/index.ts for browsers into `outfile`; resolves to esbuild's metafile. */
export async function buildBrowserClient(outfile) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['src/client/index.ts'],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    metafile: true,
    logLevel: 'warning',
  });
  writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile, null, 2));
  return result.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildBrowserClient(process.argv[2] ?? `${root}/dist/browser/client.js`);
}
