import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';
import { playHandWrittenEpisodes } from '../baselines/hand-written-episode.js';
import { BENCH_ENV } from '../fakes/bench-environment.js';
import { type BenchContext, type BenchResult, formatNumber, formatPercent } from '../support/bench-result.js';
import { measure } from '../support/measure.js';

const LATENCY_MS = 50;
const TARGET_LEVEL = 256;
const TARGET = 0.9;

/**
 * Benchmark 7 (issue 7): rollout episodes per second with `generateRollouts` (JSONL records and the
 * manifest written as it goes) against the fake model answering every call after 50 ms, at
 * concurrency 1, 64 and 256, beside the ideal (concurrency ÷ latency: each episode is one model
 * call and one tool call) and beside the hand-written loop playing the same episodes at the same
 * concurrency with the same fakes.
 */
export async function benchRolloutThroughput(ctx: BenchContext): Promise<BenchResult> {
  const levels = ctx.quick ? [1, 64] : [1, 64, 256];
  const modelName = `solve-in-1-after-${LATENCY_MS}ms`;
  const ors = new OrsClient({ baseUrl: ctx.orsUrl });
  const model = createOpenAiChatProvider({ apiKey: 'bench', baseUrl: ctx.modelBaseUrl }).create(modelName);
  const dir = await mkdtemp(join(tmpdir(), 'runbridge-bench-'));
  try {
    /** Answers how many episodes completed; failed ones are recorded in the file, as rollouts do. */
    const rollouts = async (episodes: number, concurrency: number, out: string) => {
      const result = await generateRollouts({
        ors,
        model,
        env: BENCH_ENV,
        split: 'train',
        tasks: `0:${episodes}`,
        out: join(dir, out),
        concurrency,
        retries: 0,
      });
      return result.manifest.progress.completed;
    };
    const loopEpisodes = async (episodes: number, concurrency: number) => {
      const options = {
        modelBaseUrl: ctx.modelBaseUrl,
        orsUrl: ctx.orsUrl,
        env: BENCH_ENV,
        model: modelName,
        maxTurns: 20,
      };
      return (await playHandWrittenEpisodes(options, episodes, concurrency)).filter((episode) => episode.finished)
        .length;
    };

    const rows: string[][] = [];
    let atTarget = Number.NaN;
    for (const concurrency of levels) {
      const episodes = concurrency === 1 ? 10 : concurrency * 2;
      ctx.progress(`rollouts: ${episodes} episodes at concurrency ${concurrency}`);
      // An untimed wave at this concurrency first, so connection pools are full when the clock starts.
      await rollouts(concurrency, concurrency, `warm-up-${concurrency}.jsonl`);
      await loopEpisodes(concurrency, concurrency);
      const ideal = concurrency / (LATENCY_MS / 1000);
      const ours = await measure(() => rollouts(episodes, concurrency, `c${concurrency}.jsonl`));
      const loop = await measure(() => loopEpisodes(episodes, concurrency));
      const rate = ours.value / (ours.wallMs / 1000);
      const loopRate = loop.value / (loop.wallMs / 1000);
      if (concurrency === TARGET_LEVEL) atTarget = rate / ideal;
      rows.push([
        formatNumber(concurrency),
        formatNumber(ideal),
        formatNumber(rate, 1),
        formatPercent(rate / ideal),
        formatNumber(loopRate, 1),
        formatPercent(loopRate / ideal),
        `${episodes - ours.value} / ${episodes}`,
        formatNumber(ours.cpuMs / episodes, 2),
      ]);
    }
    return {
      title: '7. Rollout throughput',
      method:
        '`generateRollouts` (records and manifest written to a temporary file) playing one-turn episodes — one model call answered ' +
        `after ${LATENCY_MS} ms, one tool call answered at once — at each concurrency, two waves of episodes (ten at concurrency 1). ` +
        'Ideal = concurrency ÷ latency; only completed episodes count. The hand-written loop plays the same episodes with the same ' +
        'fakes. Each level starts with an untimed wave at its concurrency.',
      tables: [
        {
          columns: [
            'concurrency',
            'ideal episodes/s',
            'rollouts episodes/s',
            'vs ideal',
            'loop episodes/s',
            'loop vs ideal',
            'failed episodes',
            'CPU ms per episode',
          ],
          rows,
        },
      ],
      verdicts: [
        {
          target: `≥ ${TARGET * 100} % of ideal at concurrency ${TARGET_LEVEL}`,
          measured: Number.isNaN(atTarget) ? 'not run (--quick)' : formatPercent(atTarget),
          met: Number.isNaN(atTarget) ? null : atTarget >= TARGET,
        },
      ],
      notes: [
        'Each episode also opens and deletes an ORS session (four requests besides the turn’s two), as every rollout does.',
      ],
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
