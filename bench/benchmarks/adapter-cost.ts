import Anthropic from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { toAnthropicParams } from '../../adapters/models/anthropic/anthropic-message-converter.js';
import { createAnthropicProvider } from '../../adapters/models/anthropic/anthropic-provider.js';
import { AnthropicStreamMapper } from '../../adapters/models/anthropic/anthropic-stream-mapper.js';
import { sdkClientOptions } from '../../adapters/models/common/sdk-client-options.js';
import type { StreamMapper } from '../../adapters/models/common/stream-model-parts.js';
import { toChatCompletionParams } from '../../adapters/models/openai-chat/chat-message-converter.js';
import { ChatStreamMapper, type CompatChatChunk } from '../../adapters/models/openai-chat/chat-stream-mapper.js';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { createOpenAiResponsesProvider } from '../../adapters/models/openai-responses/openai-responses-provider.js';
import { toResponsesParams } from '../../adapters/models/openai-responses/responses-message-converter.js';
import { ResponsesStreamMapper } from '../../adapters/models/openai-responses/responses-stream-mapper.js';
import type { Message, ToolDefinition } from '../../src/models/conversation.js';
import type { Model, ModelRequest } from '../../src/models/model.js';
import { readSseFixtureData } from '../../test/support/fake-vendor-server.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, measure, median, pairedRatio } from '../support/measure.js';

const TARGET = 1.1;

/** One adapter, the bare SDK call it wraps, and its pure mapper, over the same recorded stream. */
interface AdapterCase {
  name: string;
  fixture: string;
  adapter: Model;
  /** The bare SDK: send the prepared body, read every chunk, nothing else. */
  bare: () => Promise<void>;
  /** A fresh mapper over the fixture's events, as the adapter runs it. */
  mapOnce: () => void;
}

const messages: Message[] = [
  { role: 'system', content: 'You are a careful assistant. Use the tools.' },
  { role: 'user', content: [{ type: 'text', text: 'Add 2 and 40, and look up the book Dune.' }] },
];
const tools: ToolDefinition[] = [
  {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  {
    name: 'lookup',
    description: 'Looks a book up.',
    inputSchema: {
      type: 'object',
      properties: { title: { type: 'string' }, year: { type: 'number' } },
      required: ['title'],
    },
  },
];

/**
 * Benchmark 6 (issue 4): what an adapter costs per model turn over consuming the same fake stream
 * with the bare SDK. Both send the same body to the fake vendor (another process) replaying a
 * recorded stream, with a client built the same way; the adapter also converts the conversation,
 * maps every chunk to model parts and wires its abort signal. The pure mappers are also timed alone.
 */
export async function benchAdapterCost(ctx: BenchContext): Promise<BenchResult> {
  const calls = ctx.quick ? 30 : 100;
  const rounds = ctx.quick ? 1 : 40;
  const cases = adapterCases(ctx.modelBaseUrl);
  const request = (): ModelRequest => ({ messages, tools, sampling: {}, signal: new AbortController().signal });
  const rows: string[][] = [];
  let worst = 0;
  for (const adapterCase of cases) {
    ctx.progress(`adapter cost: ${adapterCase.name}, ${rounds} round(s) of ${calls} calls`);
    const timed = (turn: () => Promise<void>) => async () => {
      const { wallMs, cpuMs } = await measure(async () => {
        for (let i = 0; i < calls; i++) await turn();
      });
      return { wallUs: (wallMs * 1000) / calls, cpuUs: (cpuMs * 1000) / calls };
    };
    const variants = {
      adapter: timed(async () => {
        for await (const part of adapterCase.adapter.stream(request())) void part;
      }),
      bare: timed(adapterCase.bare),
    };
    await alternate(1, variants);
    const samples = await alternate(rounds, variants);
    const wall = (key: keyof typeof samples) => median(samples[key].map((sample) => sample.wallUs));
    const cpu = (key: keyof typeof samples) => median(samples[key].map((sample) => sample.cpuUs));
    const ratio = (key: 'wallUs' | 'cpuUs') =>
      pairedRatio(
        samples.adapter.map((sample) => sample[key]),
        samples.bare.map((sample) => sample[key]),
      );
    const mapperUs = timeMapper(adapterCase.mapOnce, ctx.quick ? 200 : 5000);
    worst = Math.max(worst, ratio('cpuUs'));
    rows.push([
      adapterCase.name,
      adapterCase.fixture,
      formatNumber(wall('adapter')),
      formatNumber(wall('bare')),
      formatRatio(ratio('wallUs')),
      formatNumber(cpu('adapter')),
      formatNumber(cpu('bare')),
      formatRatio(ratio('cpuUs')),
      formatNumber(mapperUs, 1),
    ]);
  }
  return {
    title: '6. Adapter cost per turn',
    method:
      `${calls} streamed model turns per trial against the fake vendor replaying a recorded stream, through the adapter ` +
      '(`Model.stream`) vs the bare SDK, on the transport the adapters give it (`src/http-client`), reading the same stream from the same prepared body, with an abort signal of its own as the adapter passes one. CPU is this process alone. ' +
      `Medians, and medians of per-round ratios, over ${rounds} alternating round(s) after a warm-up round. The last column ` +
      'times the pure stream mapper alone ' +
      'over the same events, parsed once beforehand.',
    tables: [
      {
        columns: [
          'adapter',
          'fixture',
          'adapter µs/turn',
          'bare SDK µs/turn',
          'ratio',
          'adapter CPU µs',
          'bare CPU µs',
          'CPU ratio',
          'mapper alone µs',
        ],
        rows,
      },
    ],
    verdicts: [
      {
        target: `adapter within ${TARGET}× of the bare SDK (CPU per turn)`,
        measured: `worst ${formatRatio(worst)}`,
        met: worst <= TARGET,
      },
    ],
    notes: ['Wall time includes the fake vendor answering (the same for both); CPU per turn is the sharper figure.'],
  };
}

function adapterCases(baseUrl: string): AdapterCase[] {
  const origin = baseUrl.replace(/\/v1$/, '');
  const sampling = {};
  const chatFixture = 'parallel-tool-calls';
  const chatClient = new OpenAI(sdkClientOptions({ apiKey: 'bench', baseUrl }));
  const chatParams = toChatCompletionParams(
    `replay-${chatFixture}`,
    { messages, tools, sampling },
    { maxTokensParam: 'max_tokens' },
  );
  const chatEvents = readSseFixtureData<CompatChatChunk>(`openai-chat/${chatFixture}.sse`);

  const responsesFixture = 'reasoning-function-calls';
  const responsesClient = new OpenAI(sdkClientOptions({ apiKey: 'bench', baseUrl }));
  const responsesParams = toResponsesParams(`replay-${responsesFixture}`, { messages, tools, sampling });
  const responsesEvents = readSseFixtureData<ResponseStreamEvent>(`openai-responses/${responsesFixture}.sse`);

  const anthropicFixture = 'thinking-tool-use';
  const anthropicClient = new Anthropic(sdkClientOptions({ apiKey: 'bench', baseUrl: origin }));
  const anthropicParams = toAnthropicParams(
    `replay-${anthropicFixture}`,
    { messages, tools, sampling },
    { defaultMaxTokens: 8192 },
  );
  const anthropicEvents = readSseFixtureData<RawMessageStreamEvent>(`anthropic/${anthropicFixture}.sse`);

  return [
    {
      name: 'openai-chat',
      fixture: chatFixture,
      adapter: createOpenAiChatProvider({ apiKey: 'bench', baseUrl }).create(`replay-${chatFixture}`),
      bare: async () => {
        for await (const chunk of await chatClient.chat.completions.create(chatParams, {
          signal: new AbortController().signal,
        }))
          void chunk;
      },
      mapOnce: () => mapAll(new ChatStreamMapper(), chatEvents),
    },
    {
      name: 'openai-responses',
      fixture: responsesFixture,
      adapter: createOpenAiResponsesProvider({ apiKey: 'bench', baseUrl }).create(`replay-${responsesFixture}`),
      bare: async () => {
        for await (const event of await responsesClient.responses.create(responsesParams, {
          signal: new AbortController().signal,
        }))
          void event;
      },
      mapOnce: () => mapAll(new ResponsesStreamMapper(), responsesEvents),
    },
    {
      name: 'anthropic',
      fixture: anthropicFixture,
      adapter: createAnthropicProvider({ apiKey: 'bench', baseUrl: origin }).create(`replay-${anthropicFixture}`),
      bare: async () => {
        for await (const event of await anthropicClient.messages.create(anthropicParams, {
          signal: new AbortController().signal,
        }))
          void event;
      },
      mapOnce: () => mapAll(new AnthropicStreamMapper(), anthropicEvents),
    },
  ];
}

function mapAll<T>(mapper: StreamMapper<T>, events: readonly T[]): void {
  for (const event of events) mapper.push(event);
  mapper.end();
}

/** Microseconds per pass of `mapOnce`, over `passes` passes after as many to warm up. */
function timeMapper(mapOnce: () => void, passes: number): number {
  for (let i = 0; i < passes; i++) mapOnce();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < passes; i++) mapOnce();
  return Number(process.hrtime.bigint() - t0) / 1000 / passes;
}
