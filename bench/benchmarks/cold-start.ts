import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, pairedRatio, percentile } from '../support/measure.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = import.meta.resolve('tsx');
const run = promisify(execFile);

/** The commands timed: the usage text alone, and a command whose module pulls in the whole server. */
const COMMANDS: ReadonlyArray<readonly string[]> = [['--help'], ['serve', '--help']];

/** Wall milliseconds from spawning `node args` to its exit. */
async function timeProcess(args: readonly string[]): Promise<number> {
  const t0 = performance.now();
  await run(process.execPath, args, { cwd: ROOT });
  return performance.now() - t0;
}

/**
 * Benchmark 8: the cold start of the `runbridge` command — a new `node` process to its exit —
 * compiled (`bin/runbridge.js` → `dist/`, as installed) vs the same `main` from the TypeScript
 * sources through tsx at run time, which is how the command started before the package was built.
 * `npm run bench` builds dist/ before any benchmark, so the compiled side is the code being measured.
 */
export async function benchColdStart(ctx: BenchContext): Promise<BenchResult> {
  const rounds = ctx.quick ? 5 : 30;
  const rows: string[][] = [];
  let helpRatio = Number.NaN;
  for (const command of COMMANDS) {
    const argv = JSON.stringify(command);
    const variants = {
      compiled: () => timeProcess(['bin/runbridge.js', ...command]),
      tsx: () =>
        timeProcess([
          '--import',
          TSX,
          '--input-type=module',
          '-e',
          `const { main } = await import('./src/cli.ts'); process.exitCode = await main(${argv});`,
        ]),
    };
    ctx.progress(`cold start: runbridge ${command.join(' ')}, warming up`);
    await alternate(2, variants);
    ctx.progress(`cold start: runbridge ${command.join(' ')}, ${rounds} rounds`);
    const samples = await alternate(rounds, variants);
    const ratio = pairedRatio(samples.compiled, samples.tsx);
    if (command[0] === '--help') helpRatio = ratio;
    for (const [name, values] of [
      ['compiled (dist/)', samples.compiled],
      ['tsx at run time', samples.tsx],
    ] as const) {
      rows.push([
        `runbridge ${command.join(' ')}`,
        name,
        formatNumber(percentile(values, 50), 0),
        formatNumber(percentile(values, 95), 0),
        name === 'tsx at run time' ? '1.00×' : formatRatio(ratio),
      ]);
    }
  }
  return {
    title: '8. Cold start of the command',
    method:
      'A new `node` process from spawn to exit, `bin/runbridge.js` running the compiled `dist/` vs the same `main` from the ' +
      'TypeScript sources through tsx at run time (how the command started before the package was built). ' +
      `Medians and the median of per-round ratios over ${rounds} alternating rounds, after 2 warm-up rounds.`,
    tables: [{ columns: ['command', 'way', 'p50 ms', 'p95 ms', 'vs tsx'], rows }],
    verdicts: [
      {
        target: 'none set; compiled vs tsx at run time',
        measured: `runbridge --help ${formatRatio(helpRatio)}`,
        met: null,
      },
    ],
    notes: [
      'The warm-up rounds fill tsx’s on-disk transform cache, so the tsx figures are its best case; a first run after an ' +
        'install, or after any source changed, also pays for transpiling every module it loads.',
      '`serve --help` imports the serve command, which loads the whole server (Koa, the adapters and their SDKs) before ' +
        'printing its usage.',
    ],
  };
}
