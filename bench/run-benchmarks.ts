import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { benchA2aServing } from './benchmarks/a2a-serving.js';
import { benchAdapterCost } from './benchmarks/adapter-cost.js';
import { benchColdStart } from './benchmarks/cold-start.js';
import { benchEveryCore } from './benchmarks/every-core.js';
import { benchFanOut } from './benchmarks/fan-out.js';
import { benchHttpClient } from './benchmarks/http-client.js';
import { benchMarkdownStreaming } from './benchmarks/markdown-streaming.js';
import { benchOrchestratorOverhead } from './benchmarks/orchestrator-overhead.js';
import { benchPeers } from './benchmarks/peers.js';
import { benchRedisStore } from './benchmarks/redis-store.js';
import { benchRolloutService } from './benchmarks/rollout-service.js';
import { benchRolloutThroughput } from './benchmarks/rollout-throughput.js';
import { benchScale } from './benchmarks/scale.js';
import { benchTelemetryOverhead } from './benchmarks/telemetry-overhead.js';
import { benchTimeToFirstEvent } from './benchmarks/time-to-first-event.js';
import { benchTokenInCost } from './benchmarks/token-in-cost.js';
import { type BenchChild, startBenchChild } from './support/bench-child.js';
import type { BenchContext, BenchResult } from './support/bench-result.js';
import { machineInfo } from './support/machine-info.js';
import { type BenchOutcome, renderConsole, renderMarkdown } from './support/render-report.js';

/** Every benchmark, in the order they run; `--only` takes these ids. */
const BENCHMARKS: ReadonlyArray<{ id: string; run: (ctx: BenchContext) => Promise<BenchResult> }> = [
  { id: 'fan-out', run: benchFanOut },
  { id: 'overhead', run: benchOrchestratorOverhead },
  { id: 'scale', run: benchScale },
  { id: 'first-event', run: benchTimeToFirstEvent },
  { id: 'http-client', run: benchHttpClient },
  { id: 'adapters', run: benchAdapterCost },
  { id: 'rollouts', run: benchRolloutThroughput },
  { id: 'cold-start', run: benchColdStart },
  { id: 'redis', run: benchRedisStore },
  { id: 'markdown', run: benchMarkdownStreaming },
  { id: 'telemetry', run: benchTelemetryOverhead },
  { id: 'rollout-service', run: benchRolloutService },
  { id: 'every-core', run: benchEveryCore },
  { id: 'peers', run: benchPeers },
  { id: 'token-in', run: benchTokenInCost },
  { id: 'a2a', run: benchA2aServing },
];

const USAGE = `npm run bench -- [--quick] [--only id,id] [--out FILE]

  --quick     a smoke run: small counts, one round (about a minute); still writes the report
  --only      run only these benchmarks: ${BENCHMARKS.map((bench) => bench.id).join(', ')}
  --out       where to write the markdown report (default BENCHMARKS.md)`;

const FIXES_LOG = new URL('./profiling-log.md', import.meta.url);

/**
 * `npm run bench`: starts the helper processes (fake model, fake ORS server, load client), runs the
 * benchmarks one after another, prints their tables and writes the markdown report with the
 * machine it ran on. A benchmark that fails is reported as such and the rest still run; the exit
 * code is 1 then, 2 for bad arguments, 0 otherwise. Missed targets do not change the exit code.
 */
export async function runBenchmarks(argv: string[]): Promise<number> {
  let options: { quick: boolean; only: string[] | undefined; out: string };
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        quick: { type: 'boolean' },
        only: { type: 'string' },
        out: { type: 'string' },
        help: { type: 'boolean' },
      },
    });
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    const only = values.only?.split(',').map((id) => id.trim());
    const unknown = only?.filter((id) => !BENCHMARKS.some((bench) => bench.id === id)) ?? [];
    if (unknown.length > 0) throw new Error(`unknown benchmark(s) ${unknown.join(', ')}`);
    options = { quick: values.quick ?? false, only, out: values.out ?? 'BENCHMARKS.md' };
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }

  const machine = machineInfo();
  const children: BenchChild[] = [];
  const outcomes: BenchOutcome[] = [];
  try {
    const start = async (name: string, file: string) => {
      const child = await startBenchChild(name, new URL(file, import.meta.url));
      children.push(child);
      return child;
    };
    const [model, ors, load] = await Promise.all([
      start('fake model', './fakes/fake-model-process.ts'),
      start('fake ORS', './fakes/fake-ors-process.ts'),
      start('load client', './load/load-client-process.ts'),
    ]);
    const ctx: BenchContext = {
      quick: options.quick,
      model,
      ors,
      load,
      modelBaseUrl: await model.call('baseUrl', null, z.string()),
      orsUrl: await ors.call('url', null, z.string()),
      progress: (line) => process.stderr.write(`  … ${line}\n`),
    };
    for (const bench of BENCHMARKS) {
      if (options.only && !options.only.includes(bench.id)) continue;
      process.stderr.write(`${bench.id}\n`);
      try {
        outcomes.push({ id: bench.id, result: await bench.run(ctx) });
      } catch (error) {
        outcomes.push({ id: bench.id, error: error instanceof Error ? error.message : String(error) });
      }
    }
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }

  process.stdout.write(renderConsole(outcomes, machine));
  writeFileSync(
    options.out,
    renderMarkdown({ outcomes, machine, command: benchCommand(argv), fixesLog: readFileSync(FIXES_LOG, 'utf8') }),
  );
  process.stdout.write(`\nwrote ${options.out}\n`);
  return outcomes.some((outcome) => 'error' in outcome) ? 1 : 0;
}

/**
 * The command line this run was started with, for the report: `npm run bench` and the arguments
 * actually passed (`--quick`, `--only`, `--out`, as given), each quoted for a POSIX shell when needed.
 */
function benchCommand(argv: readonly string[]): string {
  const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`);
  return argv.length === 0 ? 'npm run bench' : `npm run bench -- ${argv.map(quote).join(' ')}`;
}
