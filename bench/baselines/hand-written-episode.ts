import { Agent, request } from 'node:http';
import type { EventSourceMessage } from 'eventsource-parser';
import { parseSseText } from '../../test/support/parse-sse-text.js';
import { BENCH_TASKS } from '../fakes/bench-environment.js';
import { runPool } from '../support/run-pool.js';

/**
 * The orchestrator baseline: the least code that plays the same episode over the same HTTP
 * exchanges as the bridge — ORS session open, prompt and tools, then per turn one streaming Chat
 * Completions request and one `/{env}/call`, then the session deletes — with eventsource-parser over
 * one of two transports, and nothing else: no events, no validation, no retries, no timeouts. `fetch`
 * is the global `fetch` (WHATWG streams); `node-http` is `node:http` with a keep-alive agent, the
 * least a Node process can spend on the same exchanges (the physical limit of benchmarks 2, 3 and 7).
 */
export type LoopTransport = 'fetch' | 'node-http';

export interface HandWrittenEpisodeOptions {
  /** The fake model's base URL (`…/v1`). */
  modelBaseUrl: string;
  orsUrl: string;
  env: string;
  task: { split: string; index: number };
  model: string;
  maxTurns: number;
}

/** The two requests the loop makes. */
interface Http {
  post(url: string, body: unknown, headers?: Record<string, string>): Promise<string>;
  getJson<T>(url: string, headers: Record<string, string>): Promise<T>;
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
  { post, getJson }: Http,
): Promise<{ turns: number; finished: boolean }> {
  const { orsUrl, env } = options;
  const sid =
    parseSseText(await post(`${orsUrl}/create_session`, undefined)).find((event) => event.event === 'task_id')?.data ??
    '';
  const headers = { 'x-session-id': sid };
  try {
    await post(`${orsUrl}/create`, { env_name: env, ...options.task }, headers);
    const [prompt, tools] = await Promise.all([
      getJson<Array<{ text?: string }>>(`${orsUrl}/${env}/prompt`, headers),
      getJson<{ tools: Array<{ name: string; description: string; input_schema: unknown }> }>(
        `${orsUrl}/${env}/task_tools`,
        headers,
      ),
    ]);
    const messages: ChatMessage[] = [{ role: 'user', content: prompt.map((block) => block.text ?? '').join('\n') }];
    const chatTools = tools.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
    for (let turn = 1; turn <= options.maxTurns; turn++) {
      const body = {
        model: options.model,
        messages,
        tools: chatTools,
        stream: true,
        stream_options: { include_usage: true },
      };
      const answer = assemble(parseSseText(await post(`${options.modelBaseUrl}/chat/completions`, body)));
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
        const events = parseSseText(
          await post(
            `${orsUrl}/${env}/call`,
            { name: call.name, input: JSON.parse(call.arguments) as unknown },
            headers,
          ),
        );
        const result = JSON.parse(
          events
            .filter((event) => event.event === 'chunk' || event.event === 'end')
            .map((event) => event.data)
            .join(''),
        ) as {
          output?: { blocks: Array<{ text?: string }>; finished: boolean };
        };
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: result.output?.blocks.map((block) => block.text ?? '').join('\n') ?? '',
        });
        finished ||= result.output?.finished ?? false;
      }
      if (finished) return { turns: turn, finished };
    }
    return { turns: options.maxTurns, finished: false };
  } finally {
    await post(`${orsUrl}/delete`, undefined, headers);
    await post(`${orsUrl}/delete_session`, undefined, headers);
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
    transport === 'node-http' ? new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY }) : undefined;
  const http: Http = agent ? nodeHttp(agent) : { post: fetchPost, getJson: fetchJson };
  try {
    return await runPool(runs, concurrency, (index) =>
      playHandWrittenEpisode({ ...options, task: { split: 'train', index: index % BENCH_TASKS } }, http).catch(() => ({
        turns: 0,
        finished: false,
      })),
    );
  } finally {
    agent?.destroy();
  }
}

/** Requests on `node:http` through `agent`, the body read as one string. */
function nodeHttp(agent: Agent): Http {
  const send = (url: string, method: string, body: string | undefined, headers: Record<string, string>) =>
    new Promise<string>((resolve, reject) => {
      const req = request(url, { method, agent, headers }, (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(text);
          else reject(new Error(`${method} ${url} answered ${status}: ${text}`));
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    post: (url, body, headers = {}) =>
      body === undefined
        ? send(url, 'POST', undefined, headers)
        : send(url, 'POST', JSON.stringify(body), { ...headers, 'content-type': 'application/json' }),
    getJson: async (url, headers) => JSON.parse(await send(url, 'GET', undefined, headers)),
  };
}

async function fetchPost(url: string, body: unknown, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${text}`);
  return text;
}

async function fetchJson<T>(url: string, headers: Record<string, string>): Promise<T> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
  return (await response.json()) as T;
}

/** A Chat Completions stream's text and tool calls, arguments joined per index. */
function assemble(events: readonly EventSourceMessage[]): {
  text: string;
  calls: Array<{ id: string; name: string; arguments: string }>;
} {
  let text = '';
  const calls: Array<{ id: string; name: string; arguments: string }> = [];
  for (const event of events) {
    if (event.data === '[DONE]') break;
    const delta = (JSON.parse(event.data) as ChatChunk).choices[0]?.delta;
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
