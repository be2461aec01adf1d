import { Redis } from 'ioredis';
import { startTestRedis } from '../../test/support/redis-server.js';
import { BENCH_ENV } from '../fakes/bench-environment.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, median, pairedRatio } from '../support/measure.js';
import { type ServeProcess, startServeProcess } from '../support/start-serve-process.js';

const LATENCY_MS = 50;
const MODEL = `openai:solve-in-1-after-${LATENCY_MS}ms`;
/** Episodes each instance plays at once: with the model's latency, what one instance could do alone. */
const SLOTS = 32;

/** What one batch cost: its episodes per second, and the Redis commands and bytes per episode. */
interface BatchCost {
  episodesPerSecond: number;
  commandsPerEpisode: number;
  bytesPerEpisode: number;
}

/**
 * Benchmark 12 (issue 28): one rollout batch through `POST /v1/rollouts` on 1 and on 2 `runbridge serve`
 * processes sharing one Redis, its records read as NDJSON from the first instance until the batch
 * ends; beside it what Redis did per episode (commands and network bytes, from `INFO`), the figures a
 * paper estimate for many machines starts from.
 */
export async function benchRolloutService(ctx: BenchContext): Promise<BenchResult> {
  const episodes = ctx.quick ? 200 : 1000;
  const rounds = ctx.quick ? 1 : 3;
  const redis = await startTestRedis({ fsync: 'everysec' });
  const probe = new Redis(redis.url);
  const processes: ServeProcess[] = [];
  try {
    const env = {
      ORS_URL: ctx.orsUrl,
      OPENAI_BASE_URL: ctx.modelBaseUrl,
      RUNBRIDGE_REDIS_URL: redis.url,
      RUNBRIDGE_MAX_CONCURRENT_RUNS: String(SLOTS),
    };
    const cluster = async (size: number): Promise<ServeProcess[]> => {
      const prefix = redis.prefix();
      const started: ServeProcess[] = [];
      for (let n = 0; n < size; n++) started.push(await startServeProcess({ ...env, RUNBRIDGE_REDIS_PREFIX: prefix }));
      processes.push(...started);
      return started;
    };
    const one = await cluster(1);
    const two = await cluster(2);
    ctx.progress('rollout service: warm-up');
    await playBatch(one[0]!, probe, Math.min(episodes, 64));
    await playBatch(two[0]!, probe, Math.min(episodes, 64));
    ctx.progress(`rollout service: ${episodes} episodes, 1 and 2 instances, ${rounds} round(s)`);
    const samples = await alternate(rounds, {
      one: () => playBatch(one[0]!, probe, episodes),
      two: () => playBatch(two[0]!, probe, episodes),
    });
    const rate = (costs: BatchCost[]) => costs.map((cost) => cost.episodesPerSecond);
    const ratio = pairedRatio(rate(samples.two), rate(samples.one));
    const row = (instances: number, costs: BatchCost[], against: string) => [
      String(instances),
      formatNumber(median(rate(costs)), 1),
      formatNumber((instances * SLOTS * 1000) / LATENCY_MS),
      formatNumber(median(costs.map((cost) => cost.commandsPerEpisode)), 1),
      formatNumber(median(costs.map((cost) => cost.bytesPerEpisode / 1024)), 1),
      against,
    ];
    return {
      title: '12. Rollouts as a service',
      method:
        `One batch of ${formatNumber(episodes)} pairs (${BENCH_ENV} tasks, one model call and one tool call each, the fake model ` +
        `answering after ${LATENCY_MS} ms) posted to \`POST /v1/rollouts\` on \`runbridge serve\` processes sharing one Redis ` +
        `(${SLOTS} slots each), its records read as NDJSON from the first until the batch ends. Redis figures from \`INFO\` ` +
        `(reset before each batch): every command and network byte of the batch, over its episodes. Medians of ${rounds} alternating round(s); ` +
        'the ratio is the median of the rounds\u2019 ratios.',
      tables: [
        {
          columns: [
            'instances',
            'episodes/s',
            'slots ÷ latency',
            'Redis commands/episode',
            'Redis KiB/episode',
            'vs 1 instance',
          ],
          rows: [row(1, samples.one, '1.00×'), row(2, samples.two, formatRatio(ratio))],
        },
      ],
      verdicts: [{ target: 'none set; 2 instances vs 1 on one Redis', measured: formatRatio(ratio), met: null }],
      notes: [
        'Each pair is a run: it is submitted (one script), claimed from the queue (one script per claim of up to the free ' +
          'slots), written through as the runs\u2019 logs are (one fenced append per turn of the event loop), and settled into its ' +
          'batch (one script that appends its record and outcome); the reader polls the records list every 100 ms.',
        'On this 2-core machine the fake model, the fake ORS server, Redis, the reader and the instances share the cores with ' +
          'whatever else runs: both rows are bound by CPU, far below slots \u00f7 latency, and a second instance adds a second ' +
          'event loop and its upkeep (leases, queue polls), not a second core. The ratio says what two instances cost on one ' +
          'machine, not how they scale on machines of their own; docs/rollouts.md (\u201cHow far one Redis goes\u201d) turns the ' +
          'per-episode Redis figures into an estimate for 100 machines.',
      ],
    };
  } finally {
    for (const serve of processes) await serve.stop().catch(() => undefined);
    probe.disconnect();
    await redis.stop();
  }
}

/** Posts a batch of `episodes` pairs to `serve`, reads its records to the end, and says what it cost. */
async function playBatch(serve: ServeProcess, redis: Redis, episodes: number): Promise<BatchCost> {
  await redis.config('RESETSTAT');
  const t0 = performance.now();
  const response = await fetch(`${serve.url}/v1/rollouts`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      env: BENCH_ENV,
      split: 'train',
      tasks: `0:${episodes}`,
      samples: 1,
      model: MODEL,
      retries: 0,
    }),
  });
  const created = (await response.json()) as { records_url?: string };
  if (response.status !== 202 || created.records_url === undefined) {
    throw new Error(`POST /v1/rollouts answered ${response.status}: ${JSON.stringify(created)}`);
  }
  const text = await (await fetch(`${serve.url}${created.records_url}`)).text();
  const seconds = (performance.now() - t0) / 1000;
  const records = text.split('\n').filter((line) => line.trim() !== '').length;
  if (records !== episodes) throw new Error(`the batch recorded ${records} of ${episodes} pairs`);
  const stats = parseInfo(await redis.info('stats'));
  // The probe's own INFO call is one of the commands counted; it is left in (one in thousands).
  return {
    episodesPerSecond: episodes / seconds,
    commandsPerEpisode: stats.total_commands_processed! / episodes,
    bytesPerEpisode: (stats.total_net_input_bytes! + stats.total_net_output_bytes!) / episodes,
  };
}

function parseInfo(text: string): Record<string, number> {
  const fields: Record<string, number> = {};
  for (const line of text.split('\r\n')) {
    const [name, value] = line.split(':');
    if (name && value !== undefined) fields[name] = Number(value);
  }
  return fields;
}
