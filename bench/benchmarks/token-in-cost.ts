import { z } from 'zod';
import { createOpenAiChatProvider } from '../../adapters/models/openai-chat/openai-chat-provider.js';
import { VllmClient } from '../../adapters/models/vllm/vllm-client.js';
import { toVllmTools } from '../../adapters/models/vllm/vllm-message-converter.js';
import { createVllmProvider } from '../../adapters/models/vllm/vllm-provider.js';
import { nodeHttpFetch } from '../../src/http-client/node-http-fetch.js';
import type { Message, ToolDefinition } from '../../src/models/conversation.js';
import type { Model, ModelPart } from '../../src/models/model.js';
import { TOKEN_IN_TURNS } from '../fakes/token-in-policy.js';
import { startBenchChild } from '../support/bench-child.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, measure, median, pairedRatio, warmUpRounds } from '../support/measure.js';

const TARGET = 1.15;
const MODEL = 'Qwen/Qwen3-8B';

const tools: ToolDefinition[] = [
  {
    name: 'add',
    description: 'Adds two numbers.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
];

/**
 * Benchmark 15 (issue 43): what a turn of the token-in `vllm` provider costs this process against the
 * chat path (the `openai` provider with `return_token_ids` and logprobs) on the same fake vLLM server,
 * in another process: the same four-turn episodes, the same model output, a token a chunk. Each turn
 * appends the answer and the tool results to one conversation, as an episode does; the token-in turn
 * also renders its bridge with `/tokenize` and parses the completion itself. Requests are counted by
 * the transport both providers use.
 */
export async function benchTokenInCost(ctx: BenchContext): Promise<BenchResult> {
  const fake = await startBenchChild('fake vLLM', new URL('../fakes/fake-vllm-process.ts', import.meta.url));
  try {
    const url = await fake.call('url', null, z.string());
    const counts = new Map<string, number>();
    const transport = nodeHttpFetch();
    const fetch: typeof globalThis.fetch = (input, init) => {
      const path = new URL(input instanceof Request ? input.url : String(input)).pathname;
      counts.set(path, (counts.get(path) ?? 0) + 1);
      return transport(input, init);
    };
    const chat = createOpenAiChatProvider({ apiKey: 'bench', baseUrl: `${url}/v1`, fetch }).create(MODEL);
    const tokenIn = createVllmProvider({ baseUrl: url, fetch }).create(MODEL);
    const chatSampling = { extra_body: { return_token_ids: true, logprobs: true } };
    const episodes = ctx.quick ? 5 : 25;
    const rounds = ctx.quick ? 1 : 20;
    const timed = (model: Model, sampling: object) => async () => {
      const { wallMs, cpuMs } = await measure(async () => {
        for (let i = 0; i < episodes; i++) await playEpisode(model, sampling);
      });
      const turns = episodes * TOKEN_IN_TURNS;
      return { wallUs: (wallMs * 1000) / turns, cpuUs: (cpuMs * 1000) / turns };
    };
    // One `/tokenize` call of a later turn's size, alone: the call the target allows for on top.
    const client = new VllmClient(
      url,
      { apiKey: 'bench', fetch: transport },
      { name: 'the fake vLLM', apiKeyVariable: '-' },
    );
    const bridgeBody = {
      model: MODEL,
      messages: [
        {
          role: 'assistant' as const,
          content: '',
          reasoning_content: '',
          tool_calls: [
            { id: 'runbridge', type: 'function' as const, function: { name: 'runbridge', arguments: '{}' } },
          ],
        },
        { role: 'tool' as const, tool_call_id: 'call_1', content: '42' },
      ],
      tools: toVllmTools(tools),
      add_generation_prompt: true,
      add_special_tokens: false as const,
      return_token_strs: true,
    };
    const tokenizeCall = async () => {
      const { wallMs, cpuMs } = await measure(async () => {
        for (let i = 0; i < episodes * TOKEN_IN_TURNS; i++) await client.tokenize(bridgeBody, undefined);
      });
      const calls = episodes * TOKEN_IN_TURNS;
      return { wallUs: (wallMs * 1000) / calls, cpuUs: (cpuMs * 1000) / calls };
    };
    const variants = { tokenIn: timed(tokenIn, {}), chat: timed(chat, chatSampling), tokenize: tokenizeCall };
    ctx.progress(`token-in cost: ${rounds} round(s) of ${episodes} ${TOKEN_IN_TURNS}-turn episodes per way`);
    await alternate(warmUpRounds(ctx.quick), variants);
    const before = new Map(counts);
    const samples = await alternate(rounds, variants);
    const turns = rounds * episodes * TOKEN_IN_TURNS;
    const requests = (path: string) => ((counts.get(path) ?? 0) - (before.get(path) ?? 0)) / turns;
    const ratio = (key: 'wallUs' | 'cpuUs') =>
      pairedRatio(
        samples.tokenIn.map((sample) => sample[key]),
        samples.chat.map((sample) => sample[key]),
      );
    // Round by round: a token-in turn less its one /tokenize call, over a chat turn.
    const beyondCall = pairedRatio(
      samples.tokenIn.map((sample, round) => sample.cpuUs - samples.tokenize[round]!.cpuUs),
      samples.chat.map((sample) => sample.cpuUs),
    );
    const cpuRatio = ratio('cpuUs');
    const tokenizePerTurn = requests('/tokenize');
    const later = (tokenizePerTurn * TOKEN_IN_TURNS - 1) / (TOKEN_IN_TURNS - 1);
    return {
      title: '15. Token-in turns (vllm) against the chat path',
      method:
        `${episodes} ${TOKEN_IN_TURNS}-turn episodes per trial against the fake vLLM server (another process; the tests' own, with its non-reversible tokenizer and Qwen3-like template), ` +
        'through the `vllm` provider (`/tokenize`, then `/v1/completions` on token ids, parsed here) vs the `openai` provider ' +
        '(`/v1/chat/completions` with `return_token_ids` and logprobs, parsed by the server), one token a chunk either way, on runbridge’s ' +
        'transport. Each turn appends the answer and a tool result to the conversation, as an episode does. CPU is this process alone. ' +
        'The extra `/tokenize` call is also timed alone (a later turn’s bridge, the same transport), and the target set against ' +
        'a token-in turn less that call. ' +
        `Medians, and medians of per-round ratios, over ${rounds} alternating round(s) after ${warmUpRounds(ctx.quick)} warm-up round(s).`,
      tables: [
        {
          columns: ['way', 'µs/turn', 'CPU µs/turn', 'requests/turn'],
          rows: [
            [
              'token-in (`vllm`)',
              formatNumber(median(samples.tokenIn.map((sample) => sample.wallUs))),
              formatNumber(median(samples.tokenIn.map((sample) => sample.cpuUs))),
              `${formatNumber(requests('/v1/completions'), 2)} completions + ${formatNumber(tokenizePerTurn, 2)} /tokenize`,
            ],
            [
              'chat path (`openai`)',
              formatNumber(median(samples.chat.map((sample) => sample.wallUs))),
              formatNumber(median(samples.chat.map((sample) => sample.cpuUs))),
              `${formatNumber(requests('/v1/chat/completions'), 2)} chat completions`,
            ],
            [
              'one `/tokenize` call alone',
              formatNumber(median(samples.tokenize.map((sample) => sample.wallUs))),
              formatNumber(median(samples.tokenize.map((sample) => sample.cpuUs))),
              '1 /tokenize',
            ],
            ['ratio, token-in / chat', formatRatio(ratio('wallUs')), formatRatio(cpuRatio), ''],
            ['ratio, token-in less its /tokenize call / chat', '', formatRatio(beyondCall), ''],
          ],
        },
      ],
      verdicts: [
        {
          target: `token-in within ${TARGET}× of the chat path (CPU per turn), plus its one extra /tokenize call`,
          measured: `${formatRatio(beyondCall)} without the call (${formatRatio(cpuRatio)} with it)`,
          met: beyondCall <= TARGET,
        },
        {
          target: 'one /tokenize call per turn after the first (the dummy turn and the fingerprint kept)',
          measured: `${formatNumber(later, 2)} per later turn`,
          met: Math.abs(later - 1) < 0.01,
        },
      ],
      notes: [
        'Wall time includes the fake server answering, which renders the chat path’s conversation itself and the token-in path’s bridge; CPU of this process is the figure the target is about.',
      ],
    };
  } finally {
    await fake.stop();
  }
}

/** One episode at the model level: each turn's answer and tool results appended to one conversation. */
async function playEpisode(model: Model, sampling: object): Promise<void> {
  const messages: Message[] = [
    { role: 'system', content: 'You are careful. Use the tool.' },
    { role: 'user', content: [{ type: 'text', text: 'What is 2 + 40? Check it three times.' }] },
  ];
  for (let turn = 1; turn <= TOKEN_IN_TURNS; turn++) {
    const parts: ModelPart[] = [];
    for await (const part of model.stream({ messages, tools, sampling, signal: new AbortController().signal }))
      parts.push(part);
    const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.call] : []));
    messages.push({
      role: 'assistant',
      content: parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join(''),
      reasoning: parts.flatMap((part) => (part.type === 'reasoning' ? [part.block] : [])),
      toolCalls: calls,
    });
    for (const call of calls) {
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: 'text', text: '42' }],
        isError: false,
      });
    }
  }
}
