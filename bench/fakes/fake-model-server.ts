import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sseFrames } from '../../test/support/fake-vendor-server.js';

/**
 * A loopback stand-in for an LLM vendor, cheap enough that the process under measurement is the
 * bottleneck. It answers two kinds of model:
 *
 * - `solve-in-<T>` or `solve-in-<T>-after-<L>ms` (Chat Completions): a model that "solves" the bench
 *   environment in exactly T turns — on turn k < T it calls `step {"n": k}`, on turn T it calls
 *   `submit` — after waiting L ms (default 0), so every run makes the same exchanges and the numbers
 *   stay comparable. The turn is the number of tool calls in the request's assistant messages, plus
 *   one (every turn makes one): not its assistant messages, as a client may send a turn's text and
 *   its tool calls as two of them (`@openai/agents` before 0.15 does), both valid Chat Completions.
 * - `replay-<name>` (Chat Completions, Responses or Messages): the recorded stream
 *   `test/fixtures/<api>/<name>.sse`, byte for byte.
 *
 * Each answer is written with one `end` (after the latency): a zero-latency fake has no reason to
 * spread its bytes, and one write keeps its own CPU cost low.
 */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>/v1`, the base URL the SDKs take. */
  readonly baseUrl: string;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
}

const SOLVER = /^solve-in-(\d+)(?:-after-(\d+)ms)?$/;
const REPLAY = /^replay-([a-z0-9-]+)$/;
const FIXTURES = new URL('../../test/fixtures/', import.meta.url);

/** Route → fixture folder. */
const APIS: Record<string, string> = {
  '/v1/chat/completions': 'openai-chat',
  '/v1/responses': 'openai-responses',
  '/v1/messages': 'anthropic',
};

/** Starts the fake on a free loopback port. */
export async function startFakeModelServer(): Promise<FakeModelServer> {
  const fixtures = new Map<string, string>();
  let served = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, `The fake model failed: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const api = APIS[(req.url ?? '').split('?')[0] ?? ''];
    if (req.method !== 'POST' || api === undefined)
      return sendError(res, 404, `No route ${req.method} ${req.url} on the fake model.`);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      model?: string;
      messages?: Array<{ role?: string; tool_calls?: unknown[] }>;
    };
    const model = body.model ?? '';

    const replay = REPLAY.exec(model);
    if (replay) {
      const path = `${api}/${replay[1]}.sse`;
      let text = fixtures.get(path);
      if (text === undefined) {
        text = sseFrames(readFileSync(new URL(path, FIXTURES), 'utf8')).join('');
        fixtures.set(path, text);
      }
      return sendStream(res, text);
    }

    const solver = api === 'openai-chat' ? SOLVER.exec(model) : null;
    if (!solver) return sendError(res, 404, `The fake model does not know model "${model}" on ${req.url}.`);
    const turns = Number(solver[1]);
    const latencyMs = Number(solver[2] ?? 0);
    const turn =
      (body.messages ?? []).reduce(
        (calls, message) => calls + (message.role === 'assistant' ? (message.tool_calls?.length ?? 0) : 0),
        0,
      ) + 1;
    const text = solverStream(model, turn, turns, served++);
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    sendStream(res, text);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a thousand runs may connect at once, and a dropped SYN costs a second.
    server.listen(0, '127.0.0.1', 4096, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The Chat Completions stream of turn `turn` of `turns`: a little text, then one tool call, then usage. */
function solverStream(model: string, turn: number, turns: number, serial: number): string {
  const base = { id: `chatcmpl-bench${serial}`, object: 'chat.completion.chunk', created: 1764000000, model };
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const last = turn >= turns;
  const name = last ? 'submit' : 'step';
  const args = last ? ['{"answer": ', '42}'] : ['{"n": ', `${turn}}`];
  const chunks = [
    choice({ role: 'assistant', content: '' }),
    choice({ content: last ? 'Submitting' : 'Taking step' }),
    choice({ content: last ? ' the answer.' : ` ${turn}.` }),
    choice({ tool_calls: [{ index: 0, id: `call_${serial}`, type: 'function', function: { name, arguments: '' } }] }),
    choice({ tool_calls: [{ index: 0, function: { arguments: args[0] } }] }),
    choice({ tool_calls: [{ index: 0, function: { arguments: args[1] } }] }),
    choice({}, 'tool_calls'),
    {
      ...base,
      choices: [],
      usage: { prompt_tokens: 40 + 30 * turn, completion_tokens: 12, total_tokens: 52 + 30 * turn },
    },
  ];
  return `${chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('')}data: [DONE]\n\n`;
}

function sendStream(res: ServerResponse, text: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string): void {
  const text = JSON.stringify({ error: { message, type: 'invalid_request_error' } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
