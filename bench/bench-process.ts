// The benchmarks' process, as bin/bench.js starts it: tsx for bench/, the bridge from dist/.
import { runBenchmarks } from './run-benchmarks.js';

process.exitCode = await runBenchmarks(process.argv.slice(2));
