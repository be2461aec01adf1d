#!/usr/bin/env node
// Runs the benchmarks from their TypeScript sources through tsx, the way bin/runbridge.js runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { runBenchmarks } = await import('../bench/run-benchmarks.ts');
process.exitCode = await runBenchmarks(process.argv.slice(2));
