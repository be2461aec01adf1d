import { Agent } from 'node:http';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { createNodeHttp } from '../../src/http-client/node-http.js';
import { nodeHttpFetch } from '../../src/http-client/node-http-fetch.js';
import { parseSseText } from '../../test/support/parse-sse-text.js';
import { BENCH_TASKS } from '../fakes/bench-environment.js';
import { measure } from '../support/measure.js';
import { runPool } from '../support/run-pool.js';
import { openOrsEpisode } from './open-ors-episode.js';
import { fetchHttp, nodeHttp, type RawHttp } from './raw-http.js';

/**
 * The orchestrator baseline: the least code that plays the same episode over the same HTTP
 * exchanges as the bridge — ORS session open, prompt and tools, then per turn one streaming Chat
 * Completions request and one `/{env}/call`, then the session deletes — with eventsource-parser over
 * one of two transports, and nothing else: no events, no validation, no retries, no timeouts. `fetch`
 * is the global `fetch` (WHATWG streams); `node-http` is `node:http` with a keep-alive agent, the
 * least a Node process can spend on the same exchanges (the physical limit of benchmarks 2, 3 and 7).
 * `openai-sdk` is `node-http` with each model call made through the `openai` SDK instead (on the
 * transport the adapters give it), which the bridge must use: the least any client of the SDK spends,
 * so what the bridge adds on top of the SDK shows apart from what the SDK itself costs.
 */
export const LOOP_TRANSPORTS = ['fetch', 'node-http', 'openai-sdk'] as const;
export type LoopTransport = (typeof LOOP_TRANSPORTS)[number];

export interface HandWrittenEpisodeOptions {
  /** The fake model's base URL (`…/v1`). */
  modelBaseUrl: string;
  orsUrl: string;
  env: string;
  task: { split: string; index: number };
  model: string;
  maxTurns: number;
}

/** The requests the loop makes. */
interface Http extends RawHttp {
  /** One streaming Chat Completions call, read to its end. */
  chat(body: ChatCompletionCreateParamsStreaming): Promise<Answer>;
}

/** A Chat Completions stream's text and tool calls, arguments joined per index. */
interface Answer {
  text: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
}

interface ChatChunk {
  choices: Array<{
    delta?: {
      content?: string | null;
      tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
}

type ChatMessage = Record<string, unknown>;

/** Plays one episode and answers how many turns it took and whether a tool said it finished. */
async function playHandWrittenEpisode(
  options: HandWrittenEpisodeOptions,
  http: Http,
): Promise<{ turns: number; finished: boolean }> {
  const episode = await openOrsEpisode(http, options);
  try {
    const messages: ChatMessage[] = [{ role: 'user', content: episode.prompt }];
    const chatTools = episode.tools.map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
    for (let turn = 1; turn <= options.maxTurns; turn++) {
      const answer = await http.chat({
        model: options.model,
        messages: messages as unknown as ChatCompletionCreateParamsStreaming['messages'],
        tools: chatTools as ChatCompletionCreateParamsStreaming['tools'],
        stream: true,
        stream_options: { include_usage: true },
      });
      messages.push({
        role: 'assistant',
        content: answer.text || null,
        tool_calls: answer.calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      });
      if (answer.calls.length === 0) return { turns: turn, finished: false };
      let finished = false;
      for (const call of answer.calls) {
        const result = await episode.call(call.name, JSON.parse(call.arguments) as unknown);
        messages.push({ role: 'tool', tool_call_id: call.id, content: result.text });
        finished ||= result.finished;
      }
      if (finished) return { turns: turn, finished };
    }
    return { turns: options.maxTurns, finished: false };
  } finally {
    await episode.close();
  }
}

/**
 * Plays `runs` episodes, `concurrency` at once, episode i on task i (modulo the bench split's size) of
 * `train`. An episode that throws counts as unfinished with no turns, as a failed run would.
 */
export async function playHandWrittenEpisodes(
  options: Omit<HandWrittenEpisodeOptions, 'task'>,
  runs: number,
  concurrency: number,
  transport: LoopTransport = 'fetch',
): Promise<Array<{ turns: number; finished: boolean }>> {
  const agent =
    transport === 'fetch' ? undefined : new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const raw: RawHttp = agent ? nodeHttp(agent) : fetchHttp;
  const chatUrl = `${options.modelBaseUrl}/chat/completions`;
  const sdkHttp = transport === 'openai-sdk' ? createNodeHttp() : undefined;
  const http: Http = {
    ...raw,
    chat: sdkHttp
      ? sdkChat(new OpenAI({ apiKey: 'bench', baseURL: options.modelBaseUrl, fetch: nodeHttpFetch(sdkHttp) }))
      : async (body) => assemble(sseChunks(parseSseText(await raw.post(chatUrl, body)))),
  };
  try {
    return await runPool(runs, concurrency, (index) =>
      playHandWrittenEpisode({ ...options, task: { split: 'train', index: index % BENCH_TASKS } }, http).catch(() => ({
        turns: 0,
        finished: false,
      })),
    );
  } finally {
    agent?.destroy();
    sdkHttp?.close();
  }
}

/**
 * Times `play` — a wave of episodes that answers how many turns or episodes it finished — on each loop
 * transport in turn, and answers them per second of wall time.
 */
export async function loopRates(
  play: (transport: LoopTransport) => Promise<number>,
): Promise<Record<LoopTransport, number>> {
  const rates = {} as Record<LoopTransport, number>;
  for (const transport of LOOP_TRANSPORTS) {
    const { value, wallMs } = await measure(() => play(transport));
    rates[transport] = value / (wallMs / 1000);
  }
  return rates;
}

/**
 * Model calls through the `openai` SDK on the transport the adapters give it, one client for the loop,
 * its chunks collected as they come.
 */
function sdkChat(client: OpenAI): Http['chat'] {
  return async (body) => {
    const chunks: ChatChunk[] = [];
    for await (const chunk of await client.chat.completions.create(body)) chunks.push(chunk);
    return assemble(chunks);
  };
}

/** The chunks of a Chat Completions stream read as one text, up to `[DONE]`. */
function sseChunks(events: ReadonlyArray<{ data: string }>): ChatChunk[] {
  const chunks: ChatChunk[] = [];
  for (const event of events) {
    if (event.data === '[DONE]') break;
    chunks.push(JSON.parse(event.data) as ChatChunk);
  }
  return chunks;
}

function assemble(chunks: readonly ChatChunk[]): Answer {
  let text = '';
  const calls: Answer['calls'] = [];
  for (const chunk of chunks) {
    const delta = chunk.choices[0]?.delta;
    text += delta?.content ?? '';
    for (const part of delta?.tool_calls ?? []) {
      const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
      call.id ||= part.id ?? '';
      call.name ||= part.function?.name ?? '';
      call.arguments += part.function?.arguments ?? '';
    }
  }
  return { text, calls };
}
