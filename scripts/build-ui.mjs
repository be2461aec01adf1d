// The chat page served at GET / (docs/ui.md): src/ui/ bundled for browsers into one flat folder —
// index.html, app.js (Preact and runbridge/client inside), markdown-worker.js (what draws Markdown off
// the page's thread), app.css, the Inter font and its licence, the icon. The bridge serves that folder (dist/ui/ by default) and nothing else from the disk.
//
//   node scripts/build-ui.mjs [OUTDIR]     # default dist/ui
//
// esbuild's `browser` platform fails the build on any `node:` import, so no server code reaches the page.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

/** How the page's sources are compiled for browsers: for the page, and for what measures its parts (bench/). */
export const UI_ESBUILD_OPTIONS = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // What the page needs (native <dialog>, CSS nesting is not used): browsers of the last two years.
  target: ['chrome110', 'firefox115', 'safari16'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: true,
};

/** Builds the page into `outdir` (emptied first); resolves to esbuild's metafile. */
export async function buildUi(outdir) {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(outdir, { recursive: true });
  const result = await build({
    ...UI_ESBUILD_OPTIONS,
    // The Markdown worker (src/ui/markdown/markdown-worker.ts), which the page starts from beside app.js.
    entryPoints: { app: 'src/ui/main.tsx', 'markdown-worker': 'src/ui/markdown/markdown-worker.ts' },
    outdir,
    sourcemap: 'linked',
    // Fonts keep their names, so the folder stays flat and its files are served under /ui/.
    loader: { '.woff2': 'file' },
    assetNames: '[name]',
    metafile: true,
    logLevel: 'warning',
  });
  const inter = dirname(require.resolve('@fontsource-variable/inter/package.json'));
  copyFileSync(join(inter, 'LICENSE'), join(outdir, 'inter-license.txt'));
  copyFileSync(join(root, 'src/ui/index.html'), join(outdir, 'index.html'));
  copyFileSync(join(root, 'src/ui/favicon.svg'), join(outdir, 'favicon.svg'));
  return result.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildUi(process.argv[2] ?? join(root, 'dist/ui'));
}
