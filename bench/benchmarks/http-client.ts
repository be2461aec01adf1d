import { Agent, fetch as undiciFetch } from 'undici';
import { createAnthropicProvider } from '../../adapters/models/anthropic/anthropic-provider.js';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import type { Model, ModelRequest } from '../../src/models/model.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, measure, median, pairedRatio } from '../support/measure.js';
import { runPool } from '../support/run-pool.js';

/** Below this gain (wall time, both modes, both SDKs) a switch is not worth a dependency. */
const REAL_GAIN = 0.1;

interface Trial {
  wallUs: number;
  cpuUs: number;
}

/**
 * Benchmark 5: the HTTP client under the model SDKs — Node's global `fetch` (the SDKs' default) vs
 * undici 7's `fetch` on a keep-alive `Agent` of its own — for the OpenAI and Anthropic adapters,
 * one call at a time and 64 at once, against the fake vendor replaying recorded streams.
 */
export async function benchHttpClient(ctx: BenchContext): Promise<BenchResult> {
  const rounds = ctx.quick ? 1 : 6;
  const sequentialCalls = ctx.quick ? 20 : 150;
  const concurrentCalls = ctx.quick ? 64 : 640;
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  // undici's own types differ from the DOM lib's in details that do not matter to the SDKs.
  const keepAliveFetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher: agent } as never)) as unknown as typeof fetch;
  const origin = ctx.modelBaseUrl.replace(/\/v1$/, '');
  const sdks = [
    {
      name: 'openai',
      model: (fetchImpl: typeof fetch | undefined) =>
        createOpenAiChatProvider({
          apiKey: 'bench',
          baseUrl: ctx.modelBaseUrl,
          ...(fetchImpl ? { fetch: fetchImpl } : {}),
        }).create('replay-parallel-tool-calls'),
    },
    {
      name: 'anthropic',
      model: (fetchImpl: typeof fetch | undefined) =>
        createAnthropicProvider({
          apiKey: 'bench',
          baseUrl: origin,
          ...(fetchImpl ? { fetch: fetchImpl } : {}),
        }).create('replay-thinking-tool-use'),
    },
  ];
  try {
    const rows: string[][] = [];
    const gains: number[] = [];
    for (const sdk of sdks) {
      const models = { global: sdk.model(undefined), undici: sdk.model(keepAliveFetch) };
      for (const mode of ['one at a time', '64 at once'] as const) {
        const calls = mode === 'one at a time' ? sequentialCalls : concurrentCalls;
        const concurrency = mode === 'one at a time' ? 1 : 64;
        ctx.progress(`http client: ${sdk.name}, ${mode}, ${rounds} round(s) of ${calls} calls`);
        const trial = (model: Model) => async (): Promise<Trial> => {
          const { wallMs, cpuMs } = await measure(() => runPool(calls, concurrency, () => consume(model)));
          return { wallUs: (wallMs * 1000) / calls, cpuUs: (cpuMs * 1000) / calls };
        };
        const variants = { global: trial(models.global), undici: trial(models.undici) };
        await alternate(1, variants);
        const samples = await alternate(rounds, variants);
        const ratio = (key: keyof Trial) =>
          pairedRatio(
            samples.global.map((sample) => sample[key]),
            samples.undici.map((sample) => sample[key]),
          );
        const wallRatio = ratio('wallUs');
        const cpuRatio = ratio('cpuUs');
        gains.push(1 - 1 / wallRatio);
        rows.push([
          sdk.name,
          mode,
          formatNumber(median(samples.global.map((sample) => sample.wallUs))),
          formatNumber(median(samples.undici.map((sample) => sample.wallUs))),
          formatRatio(wallRatio),
          formatNumber(median(samples.global.map((sample) => sample.cpuUs))),
          formatNumber(median(samples.undici.map((sample) => sample.cpuUs))),
          formatRatio(cpuRatio),
        ]);
      }
    }
    const worstGain = Math.min(...gains);
    const adopt = worstGain >= REAL_GAIN;
    return {
      title: '5. HTTP client for the model SDKs',
      method:
        'Streamed model turns through the adapters against the fake vendor replaying recorded streams, with the SDK on Node’s global ' +
        '`fetch` vs on undici 7’s `fetch` with a keep-alive `Agent` of its own. Ratios are global ÷ undici per round (above 1: undici ' +
        `is faster), median of ${rounds} alternating round(s) after a warm-up round.`,
      tables: [
        {
          columns: [
            'SDK',
            'mode',
            'global fetch µs/call',
            'undici µs/call',
            'global ÷ undici',
            'global CPU µs',
            'undici CPU µs',
            'CPU global ÷ undici',
          ],
          rows,
        },
      ],
      verdicts: [
        {
          target: `adopt undici if it is ≥ ${REAL_GAIN * 100} % faster in every row`,
          measured: `smallest gain ${(worstGain * 100).toFixed(1)} % → ${adopt ? 'undici is worth adopting' : 'keep the global fetch'}`,
          met: null,
        },
      ],
      notes: [
        'Node’s global `fetch` is undici too (the copy bundled with Node) with a keep-alive global dispatcher, so the comparison is ' +
          'between undici versions and pools rather than between keep-alive and none.',
      ],
    };
  } finally {
    await agent.close();
  }
}

async function consume(model: Model): Promise<void> {
  const request: ModelRequest = {
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Add 2 and 40, and look up the book Dune.' }] }],
    tools: [],
    sampling: {},
    signal: new AbortController().signal,
  };
  for await (const part of model.stream(request)) void part;
}
