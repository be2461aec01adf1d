import { Agent, fetch as undiciFetch } from 'undici';
import { createAnthropicProvider } from '../../adapters/models/anthropic/anthropic-provider.js';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import type { Model, ModelRequest } from '../../src/models/model.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, measure, median, pairedRatio } from '../support/measure.js';
import { runPool } from '../support/run-pool.js';

/** The CPU the default transport must save per call, against the global `fetch`, to be worth its code. */
const REAL_GAIN = 0.1;

interface Trial {
  wallUs: number;
  cpuUs: number;
}

/** The transports compared, in the order of the table's columns. */
const TRANSPORTS = ['node:http', 'global fetch', 'undici fetch'] as const;
type Transport = (typeof TRANSPORTS)[number];

/**
 * Benchmark 5: the HTTP client under the model SDKs — runbridge's default, a `fetch` on `node:http`
 * with keep-alive (`src/http-client`), vs Node's global `fetch` (the SDKs' own default) and undici
 * 7's `fetch` on a keep-alive `Agent` of its own — for the OpenAI and Anthropic adapters, one call at
 * a time and 64 at once, against the fake vendor replaying recorded streams.
 */
export async function benchHttpClient(ctx: BenchContext): Promise<BenchResult> {
  const rounds = ctx.quick ? 1 : 6;
  const sequentialCalls = ctx.quick ? 20 : 150;
  const concurrentCalls = ctx.quick ? 64 : 640;
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  // undici's own types differ from the DOM lib's in details that do not matter to the SDKs.
  const keepAliveFetch = ((input: Parameters<typeof fetch>[0], init?: RequestInit) =>
    undiciFetch(input as never, { ...(init as object), dispatcher: agent } as never)) as unknown as typeof fetch;
  const fetches: Record<Transport, typeof fetch | undefined> = {
    'node:http': undefined,
    'global fetch': globalThis.fetch,
    'undici fetch': keepAliveFetch,
  };
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
      for (const mode of ['one at a time', '64 at once'] as const) {
        const calls = mode === 'one at a time' ? sequentialCalls : concurrentCalls;
        const concurrency = mode === 'one at a time' ? 1 : 64;
        ctx.progress(`http client: ${sdk.name}, ${mode}, ${rounds} round(s) of ${calls} calls`);
        const trial = (model: Model) => async (): Promise<Trial> => {
          const { wallMs, cpuMs } = await measure(() => runPool(calls, concurrency, () => consume(model)));
          return { wallUs: (wallMs * 1000) / calls, cpuUs: (cpuMs * 1000) / calls };
        };
        const variants = Object.fromEntries(
          TRANSPORTS.map((transport) => [transport, trial(sdk.model(fetches[transport]))]),
        ) as Record<Transport, () => Promise<Trial>>;
        await alternate(1, variants);
        const samples = await alternate(rounds, variants);
        const cpu = (transport: Transport) => samples[transport].map((sample) => sample.cpuUs);
        const cpuRatio = pairedRatio(cpu('node:http'), cpu('global fetch'));
        gains.push(1 - cpuRatio);
        rows.push([
          sdk.name,
          mode,
          ...TRANSPORTS.map((transport) => formatNumber(median(samples[transport].map((sample) => sample.wallUs)))),
          ...TRANSPORTS.map((transport) => formatNumber(median(cpu(transport)))),
          formatRatio(cpuRatio),
        ]);
      }
    }
    const worstGain = Math.min(...gains);
    return {
      title: '5. HTTP client for the model SDKs',
      method:
        'Streamed model turns through the adapters against the fake vendor replaying recorded streams, with the SDK on ' +
        'runbridge’s default transport (`node:http` with keep-alive, `src/http-client`), on Node’s global `fetch`, and on ' +
        'undici 7’s `fetch` with a keep-alive `Agent` of its own. The ratio is node:http ÷ global fetch CPU per round (below 1: ' +
        `node:http is cheaper), median of ${rounds} alternating round(s) after a warm-up round.`,
      tables: [
        {
          columns: [
            'SDK',
            'mode',
            ...TRANSPORTS.map((transport) => `${transport} µs/call`),
            ...TRANSPORTS.map((transport) => `${transport} CPU µs`),
            'CPU node:http ÷ global',
          ],
          rows,
        },
      ],
      verdicts: [
        {
          target: `the default transport ≥ ${REAL_GAIN * 100} % cheaper in CPU than the global fetch in every row`,
          measured: `smallest saving ${(worstGain * 100).toFixed(1)} %`,
          met: worstGain >= REAL_GAIN,
        },
      ],
      notes: [
        'Node’s global `fetch` is undici too (the copy bundled with Node) with a keep-alive global dispatcher; both `fetch`es ' +
          'hand the SDK a WHATWG stream, which the node:http transport does not (the SDKs read its body as an async iterable).',
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
