import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ModelError } from '../../src/errors.js';
import { LOCAL_OWNER } from '../../src/http/authenticate.js';
import { openaiFormat } from '../../src/http/formats/openai-format.js';
import { DEFAULT_FORMAT_OPTIONS } from '../../src/http/formats/stream-format.js';
import { streamContextOf } from '../../src/http/serve-run-stream.js';
import { ChatCompletionSchema } from '../../src/protocol/chat-completion.js';
import { RunSnapshotSchema } from '../../src/protocol/run-snapshot.js';
import { foldEpisode } from '../../src/runs/episode-fold.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { deferred } from '../support/test-environment.js';

const json = { 'Content-Type': 'application/json' };
/** Waits are ended by events; the bound only stops a broken test, and is generous for busy machines. */
const patiently = { timeout: 20_000 };

/** The running run of `model` (the one a waiting chat completion request started). */
function runningRunOf(bridge: TestBridge, model: string): Promise<string> {
  return vi.waitFor(async () => {
    const found = (await bridge.registry.list(LOCAL_OWNER, { limit: 100 })).data.find(
      (entry) => entry.model === model && entry.status === 'running',
    );
    expect(found).toBeDefined();
    return found!.run_id;
  }, patiently);
}

describe('POST /v1/chat/completions', () => {
  let bridge: TestBridge;
  const held = deferred();

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_DEFAULT_ENV: 'probe' },
      {
        environments: [probeEnvironment],
        providers: [
          scriptedProvider({
            echo: [{ text: 'Echoing. ', toolCalls: [{ name: 'echo', arguments: '{"text":"hi"}' }] }, { text: 'Done.' }],
            held: [{ text: 'Released.', gate: held.promise }],
            unavailable: [
              { error: new ModelError('The model provider is unavailable.', { code: 'model_unavailable' }) },
            ],
            broken: [{ error: new Error('a bug') }],
            hang: [{ hang: true }],
          }),
        ],
      },
    );
  });
  afterAll(async () => {
    held.resolve();
    await bridge.shutdown();
  });

  const post = (body: unknown, init: RequestInit = {}) =>
    bridge.fetch('/v1/chat/completions', { method: 'POST', headers: json, body: JSON.stringify(body), ...init });
  const run = (id: string) => bridge.registry.open(id, LOCAL_OWNER);

  it('answers with one chat.completion of the run it played, named in x-run-id and listed under /v1/runs', async () => {
    const response = await post({ model: 'scripted:echo', messages: [{ role: 'user', content: 'Echo hi.' }] });
    expect(response.status).toBe(200);
    const runId = response.headers.get('x-run-id')!;
    const completion = ChatCompletionSchema.parse(await response.json());
    expect(completion).toMatchObject({
      id: `chatcmpl-${runId}`,
      model: 'scripted:echo',
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
    });
    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: {
        content: 'Echoing. \n\nDone.',
        tool_calls: [{ id: 'call_0_0', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } }],
      },
    });
    const listed = (await (await bridge.fetch('/v1/runs?limit=100')).json()) as { data: unknown[] };
    const snapshot = listed.data.map((entry) => RunSnapshotSchema.parse(entry)).find((entry) => entry.run_id === runId);
    expect(snapshot).toMatchObject({ status: 'completed', output: 'Done.', model: 'scripted:echo', env: 'probe' });
  });

  it("streams the run's format=openai stream from its first event when stream is true, with x-run-id", async () => {
    const response = await post({
      model: 'scripted:echo',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Echo hi.' }],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const runId = response.headers.get('x-run-id')!;
    const text = await response.text();
    const played = await run(runId);
    const context = streamContextOf(played, DEFAULT_FORMAT_OPTIONS);
    expect(text).toBe(
      `retry: 3000\n${played.log.entries.map((entry) => openaiFormat.frame(entry, context)).join('')}data: [DONE]\n\n`,
    );
  });

  it('lets the typed events ride along in the stream with ?agent_events=1, with the SSE headers of every stream', async () => {
    const response = await bridge.fetch('/v1/chat/completions?agent_events=1', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'scripted:echo', stream: true, messages: [{ role: 'user', content: 'Echo hi.' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const text = await response.text();
    const played = await run(response.headers.get('x-run-id')!);
    const context = streamContextOf(played, { agentEvents: true });
    expect(text).toBe(
      `retry: 3000\n${played.log.entries.map((entry) => openaiFormat.frame(entry, context)).join('')}data: [DONE]\n\n`,
    );
    expect(text).toContain('"choices":[],"agent_event":{"event":"tool.completed"');
  });

  it('answers 400 naming an unknown query key, before starting a run', async () => {
    const before = (await bridge.registry.list(LOCAL_OWNER, { limit: 100 })).data.length;
    const response = await bridge.fetch('/v1/chat/completions?colour=red', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'scripted:echo', messages: [{ role: 'user', content: 'Echo hi.' }] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'invalid_request', message: expect.stringContaining('colour') },
    });
    expect((await bridge.registry.list(LOCAL_OWNER, { limit: 100 })).data).toHaveLength(before);
  });

  it('makes system and developer messages the instructions, and user and assistant messages the turns after the prompt', async () => {
    const response = await post({
      model: 'scripted:echo',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Echo hi.' },
        {
          role: 'assistant',
          content: 'Earlier answer.',
          refusal: null,
          tool_calls: [{ id: 'old', type: 'function', function: { name: 'x', arguments: '{}' } }],
        },
        { role: 'assistant', content: null },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Again.' }] },
      ],
    });
    expect(response.status).toBe(200);
    const messages = foldEpisode((await run(response.headers.get('x-run-id')!)).log.entries).messages.slice(0, 5);
    expect(messages).toEqual([
      { role: 'system', content: 'Be brief.\n\nAnswer in English.' },
      { role: 'user', content: [{ type: 'text', text: 'Probe the bridge.' }] },
      { role: 'user', content: [{ type: 'text', text: 'Echo hi.' }] },
      { role: 'assistant', content: 'Earlier answer.', reasoning: [], toolCalls: [] },
      { role: 'user', content: [{ type: 'text', text: 'Again.' }] },
    ]);
  });

  it('passes the sampling fields to the run, max_completion_tokens winning over max_tokens, and metadata to its snapshot', async () => {
    const response = await post({
      model: 'scripted:echo',
      messages: [{ role: 'user', content: 'Echo hi.' }],
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 100,
      max_completion_tokens: 50,
      seed: 7,
      max_turns: 1,
      metadata: { experiment: 'a' },
    });
    const played = await run(response.headers.get('x-run-id')!);
    expect(played.record.request.sampling).toEqual({ temperature: 0.2, top_p: 0.9, max_tokens: 50, seed: 7 });
    expect(played.log.summary.turns).toBe(1);
    expect(played.record.request.metadata).toEqual({ experiment: 'a' });
    expect(((await response.json()) as { choices: Array<{ finish_reason: string }> }).choices[0]!.finish_reason).toBe(
      'length',
    );
  });

  it('accepts the neutral values and bookkeeping fields OpenAI clients send, and ignores them', async () => {
    const response = await post({
      model: 'scripted:echo',
      messages: [{ role: 'user', content: 'Echo hi.', name: 'ada' }],
      n: 1,
      logprobs: false,
      frequency_penalty: 0,
      presence_penalty: 0,
      stop: null,
      response_format: { type: 'text' },
      modalities: ['text'],
      user: 'ada',
      store: false,
      service_tier: 'auto',
      parallel_tool_calls: true,
      tools: null,
    });
    expect(response.status).toBe(200);
  });

  it('refuses what it cannot honour with a 400 that names each field and why', async () => {
    const response = await post({
      model: 'scripted:echo',
      messages: [{ role: 'tool', tool_call_id: 'x', content: 'result' }],
      tools: [{ type: 'function', function: { name: 'f' } }],
      n: 2,
      response_format: { type: 'json_object' },
      frequency_penalty: 0.5,
      colour: 'blue',
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: { code: string; details: Array<{ path: string; message: string }> };
    };
    expect(body.error.code).toBe('invalid_request');
    const byPath = Object.fromEntries(body.error.details.map((detail) => [detail.path, detail.message]));
    expect(byPath['messages.0.role']).toMatch(/"tool" messages are not accepted/);
    expect(byPath.tools).toMatch(/ORS environment/);
    expect(byPath.n).toMatch(/n must be 1/);
    expect(byPath['response_format.type']).toMatch(/only text output/);
    expect(byPath.frequency_penalty).toMatch(/per-token controls/);
    expect(body.error.details.some((detail) => detail.message.includes('colour'))).toBe(true);
  });

  it('answers a run that failed at the model with 502 and its code when not streaming, and 500 for a failure inside the bridge', async () => {
    const unavailable = await post({ model: 'scripted:unavailable', messages: [{ role: 'user', content: 'x' }] });
    expect(unavailable.status).toBe(502);
    expect(await unavailable.json()).toEqual({
      error: { code: 'model_unavailable', message: 'The model provider is unavailable.' },
    });
    expect(unavailable.headers.get('x-run-id')).toMatch(/^run_/);
    const broken = await post({ model: 'scripted:broken', messages: [{ role: 'user', content: 'x' }] });
    expect(broken.status).toBe(500);
    expect(await broken.json()).toMatchObject({ error: { code: 'internal_error' } });
  });

  it("streams a failed run's error body as the last frame before [DONE]", async () => {
    const response = await post({
      model: 'scripted:unavailable',
      stream: true,
      messages: [{ role: 'user', content: 'x' }],
    });
    const frames: string[] = [];
    for await (const frame of readSseEvents(response.body!)) frames.push(frame.data);
    expect(frames.slice(-2)).toEqual([
      JSON.stringify({ error: { code: 'model_unavailable', message: 'The model provider is unavailable.' } }),
      '[DONE]',
    ]);
  });

  it('answers 409 with code "cancelled" and the reason when the run it waits on is cancelled', async () => {
    const answer = post({ model: 'scripted:hang', messages: [{ role: 'user', content: 'x' }] });
    const runId = await runningRunOf(bridge, 'scripted:hang');
    await bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    const response = await answer;
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({
      error: { code: 'cancelled', message: 'The run was cancelled by the client.', details: { reason: 'client' } },
    });
  });

  it('keeps playing the run of a streaming client that went away', async () => {
    const client = new AbortController();
    const response = await post(
      { model: 'scripted:held', stream: true, messages: [{ role: 'user', content: 'x' }] },
      { signal: client.signal },
    );
    const runId = response.headers.get('x-run-id')!;
    for await (const frame of readSseEvents(response.body!)) {
      if (frame.data.includes('"role":"assistant"')) break; // leaving the loop closes the connection
    }
    client.abort();
    await expect.poll(() => bridge.registry.localStats().subscribers, patiently).toBe(0);
    expect((await run(runId)).log.summary.status).toBe('running');
    held.resolve();
    expect((await bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.completed', output: 'Released.' });
    expect((await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as object).toMatchObject({ status: 'completed' });
  });

  it('keeps playing the run of a waiting client that went away', async () => {
    const client = new AbortController();
    const answer = post(
      { model: 'scripted:hang', messages: [{ role: 'user', content: 'x' }] },
      { signal: client.signal },
    );
    const runId = await runningRunOf(bridge, 'scripted:hang');
    await expect.poll(() => bridge.registry.localStats().subscribers, patiently).toBe(1);
    client.abort();
    await expect(answer).rejects.toThrow();
    await expect.poll(() => bridge.registry.localStats().subscribers, patiently).toBe(0);
    expect((await run(runId)).log.summary.status).toBe('running');
    await bridge.fetch(`/v1/runs/${runId}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' } });
    expect((await bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.cancelled' });
  });
});

describe('POST /v1/chat/completions shares the limits and access rules of POST /v1/runs', () => {
  it('answers 429 with Retry-After when the queue is full, 404 for an unknown env, and 503 while draining', async () => {
    const bridge = await startTestBridge(
      {
        RUNBRIDGE_MAX_CONCURRENT_RUNS: '1',
        RUNBRIDGE_MAX_QUEUED_RUNS: '0',
        RUNBRIDGE_DEFAULT_ENV: 'probe',
        RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '0.1',
      },
      { environments: [probeEnvironment], providers: [scriptedProvider({ hang: [{ hang: true }] })] },
    );
    try {
      const post = (body: unknown) =>
        bridge.fetch('/v1/chat/completions', { method: 'POST', headers: json, body: JSON.stringify(body) });
      const busy = post({ model: 'scripted:hang', messages: [{ role: 'user', content: 'x' }] });
      await expect.poll(() => bridge.registry.localStats().running, patiently).toBe(1);
      const refused = await post({ model: 'scripted:hang', messages: [{ role: 'user', content: 'x' }] });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(await refused.json()).toMatchObject({ error: { code: 'queue_full' } });
      const unknownEnv = await post({ env: 'nope', messages: [{ role: 'user', content: 'x' }] });
      expect(unknownEnv.status).toBe(404);
      const stopping = bridge.shutdown();
      const draining = await post({ messages: [{ role: 'user', content: 'x' }] });
      expect(draining.status).toBe(503);
      expect((await busy).status).toBe(409); // cancelled by the shutdown
      await stopping;
    } finally {
      await bridge.shutdown();
    }
  });

  it('gives the run to the key that asked: another key does not see it', async () => {
    const bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: 'alpha-key-0123456789,beta-key-0123456789a' },
      { apiKey: 'alpha-key-0123456789' },
    );
    try {
      const anonymous = await fetch(`${bridge.url}/v1/chat/completions`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(anonymous.status).toBe(401);
      const response = await bridge.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ env: 'arith', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(response.status).toBe(200);
      const runId = response.headers.get('x-run-id')!;
      expect((await bridge.fetch(`/v1/runs/${runId}`)).status).toBe(200);
      expect(
        (await fetch(`${bridge.url}/v1/runs/${runId}`, { headers: { Authorization: 'Bearer beta-key-0123456789a' } }))
          .status,
      ).toBe(404);
    } finally {
      await bridge.shutdown();
    }
  });
});
