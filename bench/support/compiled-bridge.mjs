// `node --import tsx --import ./bench/support/compiled-bridge.mjs …`: the benchmarks' own TypeScript runs
// through tsx, while every module of the bridge (src/, adapters/) loads from dist/ as `npm run build` made
// it — what an installed runbridge runs. tsx compiles with esbuild's `keepNames`, which wraps every function
// the bridge makes at run time in a call that sets its name; measured through tsx, the bridge paid for that
// and the SDKs and peers it is compared with (plain JavaScript in node_modules) did not.
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

register('./compiled-bridge-hooks.mjs', import.meta.url);
// A worker thread (a rollout worker) inherits these imports, but tsx's does not register itself there on
// Node 20; the thread needs it for a benchmark's TypeScript it loads (a worker's setup).
if (!isMainThread) (await import('tsx/esm/api')).register();
