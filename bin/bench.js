#!/usr/bin/env node
// `npm run bench`: builds dist/ as `npm run build` does, then runs the benchmarks — their own TypeScript
// through tsx — with every module of the bridge loaded from that build (bench/support/compiled-bridge.mjs),
// so what is measured is the code an installed runbridge runs.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const path = (relative) => fileURLToPath(new URL(relative, import.meta.url));
const node = (args) => spawnSync(process.execPath, args, { stdio: 'inherit' });

const build = node([path('../scripts/build.mjs')]);
if (build.status !== 0) {
  process.stderr.write('bench: npm run build failed; nothing was measured.\n');
  process.exit(build.status ?? 1);
}
const bench = node([
  '--import',
  import.meta.resolve('tsx'),
  '--import',
  import.meta.resolve('../bench/support/compiled-bridge.mjs'),
  path('../bench/bench-process.ts'),
  ...process.argv.slice(2),
]);
process.exitCode = bench.status ?? 1;
