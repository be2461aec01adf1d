import { formatSseFrame } from '../../src/sse/format-sse-frame.js';
import { startBareRunServer } from '../baselines/bare-run-server.js';
import { BENCH_ENV } from '../fakes/bench-environment.js';
import { LoadClient } from '../load/load-client-api.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, percentile } from '../support/measure.js';
import { startBenchBridge } from '../support/start-bench-bridge.js';

/**
 * Benchmark 4: from just before `POST /v1/runs` to the arrival of `run.started` on a subscriber
 * opened as soon as the POST is answered, on an idle bridge, vs a bare server answering the same two
 * requests with prepared bytes. Samples run one at a time (each stream read to its end first).
 */
export async function benchTimeToFirstEvent(ctx: BenchContext): Promise<BenchResult> {
  const perRound = ctx.quick ? 20 : 100;
  const rounds = ctx.quick ? 1 : 4;
  const load = new LoadClient(ctx.load);
  const bridge = await startBenchBridge({ orsUrl: ctx.orsUrl, modelBaseUrl: ctx.modelBaseUrl });
  const started = {
    event: 'run.started',
    seq: 0,
    run_id: 'run_bare',
    timestamp: Date.now() / 1000,
    env: BENCH_ENV,
    task: { split: 'train', index: 0 },
    model: 'openai:solve-in-1',
  };
  const bare = await startBareRunServer(formatSseFrame({ id: 0, event: 'run.started', data: JSON.stringify(started) }));
  try {
    const body = { model: 'openai:solve-in-1' };
    const variants = {
      bridge: () => load.timeToFirstEvent({ baseUrl: bridge.url, body, samples: perRound }),
      bare: () => load.timeToFirstEvent({ baseUrl: bare.url, body, samples: perRound }),
    };
    ctx.progress('time to first event: warming up');
    await alternate(1, variants);
    ctx.progress(`time to first event: ${rounds} round(s) of ${perRound} samples`);
    const samples = await alternate(rounds, variants);
    const ours = samples.bridge.flat();
    const theirs = samples.bare.flat();
    const rows = [50, 95, 99].map((p) => {
      const a = percentile(ours, p);
      const b = percentile(theirs, p);
      return [`p${p}`, formatNumber(a, 2), formatNumber(b, 2), formatRatio(a / b)];
    });
    return {
      title: '4. Time to first event',
      method:
        'From just before `POST /v1/runs` to the arrival of the `run.started` frame on a subscriber opened as soon as the POST ' +
        `is answered, on an idle bridge, vs a bare \`node:http\` server answering the same two requests with prepared bytes. ` +
        `${ours.length} samples each, one at a time, alternating in rounds of ${perRound}, after a warm-up round.`,
      tables: [{ columns: ['percentile', 'bridge ms', 'bare ms', 'ratio'], rows }],
      verdicts: [
        {
          target: 'none set; reported against the bare server',
          measured: `p50 ${formatRatio(percentile(ours, 50) / percentile(theirs, 50))}`,
          met: null,
        },
      ],
      notes: [
        'The bridge validates the request, resolves the environment and task (cached after the first run), queues and starts the run, ' +
          'and `run.started` is in the log before the POST is answered; the subscriber then gets it from the log.',
      ],
    };
  } finally {
    await bridge.shutdown();
    await bare.close();
  }
}
