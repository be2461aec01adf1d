import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, measure, median, pairedRatio, warmUpRounds } from '../support/measure.js';
import { startBenchBridge } from '../support/start-bench-bridge.js';

/** Turns of the run served: the fake model solves the bench environment in exactly this many. */
const TURNS = 10;

/**
 * Benchmark 16: what serving a run over A2A costs against `format=events` (docs/a2a.md). One finished
 * run of the fake model is read whole, again and again, as the run's own event stream
 * (`GET /v1/runs/:id/events`) and as an A2A task stream (`SubscribeToTask` with `Last-Event-ID: -1`:
 * the task, then every update), both by `fetch` in this process. CPU is this process's, bridge and
 * reader together, per read.
 */
export async function benchA2aServing(ctx: BenchContext): Promise<BenchResult> {
  const reads = ctx.quick ? 20 : 200;
  const rounds = ctx.quick ? 1 : 7;
  const bridge = await startBenchBridge({ orsUrl: ctx.orsUrl, modelBaseUrl: ctx.modelBaseUrl });
  try {
    const created = await fetch(`${bridge.url}/v1/runs`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ model: `openai:solve-in-${TURNS}` }),
    });
    const { run_id: runId } = (await created.json()) as { run_id: string };
    const events = await readAll(await fetch(`${bridge.url}/v1/runs/${runId}/events`));
    const subscribe = () =>
      fetch(`${bridge.url}/v1/a2a`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', 'Last-Event-ID': '-1' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: runId } }),
      });
    const a2a = await readAll(await subscribe());
    if (!a2a.text.includes('TASK_STATE_COMPLETED'))
      throw new Error(`A2A serving: the run did not complete: ${a2a.text.slice(-300)}`);
    const perRead = (read: () => Promise<unknown>) => async () => {
      const { wallMs, cpuMs } = await measure(async () => {
        for (let i = 0; i < reads; i++) await read();
      });
      return { wallUs: (wallMs * 1000) / reads, cpuUs: (cpuMs * 1000) / reads };
    };
    const variants = {
      events: perRead(async () => readAll(await fetch(`${bridge.url}/v1/runs/${runId}/events`))),
      a2a: perRead(async () => readAll(await subscribe())),
    };
    const warmUps = warmUpRounds(ctx.quick);
    ctx.progress(`a2a serving: warming up (${warmUps} round(s))`);
    await alternate(warmUps, variants);
    ctx.progress(`a2a serving: ${reads} reads of each stream, ${rounds} round(s)`);
    const samples = await alternate(rounds, variants);
    const cpu = (key: keyof typeof samples) => samples[key].map((trial) => trial.cpuUs);
    const wall = (key: keyof typeof samples) => median(samples[key].map((trial) => trial.wallUs));
    const ratio = pairedRatio(cpu('a2a'), cpu('events'));
    return {
      title: '16. Serving a run over A2A',
      method:
        `One finished run of ${TURNS} turns (${events.frames} events, ${formatNumber(events.text.length / 1024, 1)} KiB as ` +
        `\`format=events\`; ${a2a.frames} frames, ${formatNumber(a2a.text.length / 1024, 1)} KiB as an A2A task stream) read whole, ` +
        `${reads} times a round, as \`GET /v1/runs/:id/events\` and as \`SubscribeToTask\` with \`Last-Event-ID: -1\`, by \`fetch\` ` +
        `in the bridge's process. Medians, and the median of per-round ratios, over ${rounds} alternating round(s) after ${warmUps} warm-up round(s).`,
      tables: [
        {
          columns: ['stream', 'µs per read', 'CPU µs per read', 'CPU vs format=events'],
          rows: [
            ['format=events', formatNumber(wall('events')), formatNumber(median(cpu('events'))), formatRatio(1)],
            ['A2A SubscribeToTask', formatNumber(wall('a2a')), formatNumber(median(cpu('a2a'))), formatRatio(ratio)],
          ],
        },
      ],
      verdicts: [{ target: 'none set; reported against format=events', measured: formatRatio(ratio), met: null }],
      notes: [
        "`format=events` serves the frames each event was stored with, and a replay's batches are kept for the next reader " +
          '(`frame-batch.ts`); an A2A stream folds the log into the task it starts with and frames each update as a JSON-RPC ' +
          'answer for its request, for every reader.',
      ],
    };
  } finally {
    await bridge.shutdown();
  }
}

/** A response's body read to its end: its text and how many SSE frames it held. */
async function readAll(response: Response): Promise<{ text: string; frames: number }> {
  const text = await response.text();
  return { text, frames: text.split('\n\n').filter((frame) => frame.includes('data:')).length };
}
