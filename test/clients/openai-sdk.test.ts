import OpenAI, { APIError } from 'openai';
import { ChatCompletionStream } from 'openai/lib/ChatCompletionStream';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { Stream } from 'openai/streaming';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/errors.js';
import type { ChatEpisode } from '../../src/protocol/chat-completion.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider, singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/** A model that streams the arguments of its call in pieces (turn 1), then answers (turn 2). */
const streamingCallsProvider = singleModelProvider('streams-calls', async function* (request) {
  if (request.messages.some((message) => message.role === 'assistant')) {
    yield { type: 'text-delta', delta: 'It said hi.' };
    yield { type: 'finish', reason: 'stop' };
    return;
  }
  yield { type: 'text-delta', delta: 'Let me echo. ' };
  for (const delta of ['', '{"text"', ':"hi"', '}'])
    yield { type: 'tool-call-delta', id: 'call_streamed', name: 'echo', delta };
  yield { type: 'tool-call', call: { id: 'call_streamed', name: 'echo', arguments: '{"text":"hi"}' } };
  yield { type: 'finish', reason: 'tool_calls' };
});

/**
 * The official `openai` Node SDK, unchanged, against the bridge on loopback: the chat completions
 * door (streaming, the `.stream()` helper, non-streaming) and `format=openai` on the events route.
 */
describe('the official openai SDK', () => {
  let bridge: TestBridge;
  let client: OpenAI;
  const request = {
    model: 'scripted:story',
    messages: [{ role: 'user' as const, content: 'Echo hi, then tell me what it said.' }],
  };
  const failing = { model: 'scripted:unavailable', messages: [{ role: 'user' as const, content: 'Anything.' }] };
  /** What the scripted story says over its two turns, as one message. */
  const storyText = 'Let me echo. \n\nIt said hi.';

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_DEFAULT_ENV: 'probe' },
      {
        environments: [probeEnvironment],
        providers: [
          scriptedProvider({
            story: [
              {
                reasoning: 'Echo first.',
                text: 'Let me echo. ',
                toolCalls: [{ name: 'echo', arguments: '{"text":"hi"}' }],
              },
              { text: 'It said hi.' },
            ],
            unavailable: [
              { error: new ModelError('The model provider is unavailable.', { code: 'model_unavailable' }) },
            ],
          }),
          streamingCallsProvider,
        ],
      },
    );
    // No retries: a retried request would start a second run.
    client = new OpenAI({ baseURL: `${bridge.url}/v1`, apiKey: 'not-needed-on-loopback', maxRetries: 0 });
  });
  afterAll(() => bridge.shutdown());

  it('streams with chat.completions.create({stream: true}) and rebuilds the text, the tool calls and the usage', async () => {
    const { data: stream, response } = await client.chat.completions
      .create({ ...request, stream: true })
      .withResponse();
    const runId = response.headers.get('x-run-id')!;
    let text = '';
    const toolCalls: string[] = [];
    let usage: ChatCompletionChunk['usage'];
    let finishReason: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
        toolCalls.push(`${call.index}:${call.function?.name}`);
      finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(storyText);
    expect(toolCalls).toEqual(['0:echo']);
    expect(finishReason).toBe('stop');
    expect(usage).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
    const snapshot = (await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as { status: string; output: string };
    expect(snapshot).toMatchObject({ status: 'completed', output: 'It said hi.' });
  });

  it('rebuilds with the .stream() helper the same completion a non-streaming request answers', async () => {
    const streamed = await client.chat.completions.stream(request).finalChatCompletion();
    const answered = await client.chat.completions.create(request);
    for (const completion of [streamed, answered]) {
      const [choice] = completion.choices;
      expect(choice!.message.content).toBe(storyText);
      expect(
        choice!.message.tool_calls?.map(
          (call) => call.type === 'function' && [call.id, call.function.name, call.function.arguments],
        ),
      ).toEqual([['call_0_0', 'echo', '{"text":"hi"}']]);
      expect(choice!.finish_reason).toBe('stop');
      expect(completion.usage).toEqual({ prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 });
    }
  });

  it('hands the tool results and the reward of a non-streaming completion to the caller in completion.runbridge', async () => {
    const completion = await client.chat.completions.create(request);
    const { runbridge } = completion as typeof completion & { runbridge: ChatEpisode };
    expect(runbridge).toEqual({
      run_id: completion.id.replace(/^chatcmpl-/, ''),
      reward: null,
      finished: false,
      stop_reason: 'no_tool_calls',
      turns: 2,
      tool_results: [
        {
          tool_call_id: 'call_0_0',
          tool: 'echo',
          output: 'hi',
          error: false,
          reward: null,
          finished: false,
          duration: expect.any(Number),
        },
      ],
    });
    // Matched to the message's tool calls by id, as a client would.
    expect(runbridge.tool_results.map((result) => result.tool_call_id)).toEqual(
      completion.choices[0]!.message.tool_calls?.map((call) => call.id),
    );
  });

  it("reads format=openai of the events route with the SDK's own stream reader and accumulator", async () => {
    const runId = await bridge.startRun({ model: 'scripted:story' });
    await bridge.readEvents(runId);
    const response = await bridge.fetch(`/v1/runs/${runId}/events?format=openai`);
    const chunks = Stream.fromSSEResponse<ChatCompletionChunk>(response, new AbortController());
    const completion = await ChatCompletionStream.fromReadableStream(chunks.toReadableStream()).finalChatCompletion();
    expect(completion.id).toBe(`chatcmpl-${runId}`);
    expect(completion.choices[0]!.message.content).toBe(storyText);
    expect(completion.choices[0]!.message.tool_calls).toHaveLength(1);
  });

  it("reads a call's argument pieces with the SDK's stream reader and accumulator, as it reads OpenAI's own", async () => {
    const streamed = { ...request, model: 'streams-calls' };
    const { data: stream, response } = await client.chat.completions
      .create({ ...streamed, stream: true })
      .withResponse();
    const pieces: Array<{ index: number; id?: string; arguments?: string }> = [];
    for await (const chunk of stream)
      for (const call of chunk.choices[0]?.delta.tool_calls ?? [])
        pieces.push({
          index: call.index,
          ...(call.id ? { id: call.id } : {}),
          ...(call.function?.arguments === undefined ? {} : { arguments: call.function.arguments }),
        });
    expect(pieces).toEqual([
      { index: 0, id: 'call_streamed', arguments: '' },
      { index: 0, arguments: '{"text"' },
      { index: 0, arguments: ':"hi"' },
      { index: 0, arguments: '}' },
    ]);
    const runId = response.headers.get('x-run-id')!;
    const chunks = Stream.fromSSEResponse<ChatCompletionChunk>(
      await bridge.fetch(`/v1/runs/${runId}/events?format=openai`),
      new AbortController(),
    );
    const events = ChatCompletionStream.fromReadableStream(chunks.toReadableStream());
    const done: string[] = [];
    events.on('tool_calls.function.arguments.done', (call) => done.push(`${call.name} ${call.arguments}`));
    const completion = await events.finalChatCompletion();
    expect(done).toEqual(['echo {"text":"hi"}']);
    for (const final of [completion, await client.chat.completions.create(streamed)]) {
      expect(
        final.choices[0]!.message.tool_calls?.map(
          (call) => call.type === 'function' && [call.id, call.function.name, call.function.arguments],
        ),
      ).toEqual([['call_streamed', 'echo', '{"text":"hi"}']]);
    }
  });

  it('raises a failed run as an APIError, streaming, with the helper, and without streaming', async () => {
    const streaming = async () => {
      for await (const chunk of await client.chat.completions.create({ ...failing, stream: true })) void chunk;
    };
    const expected = { code: 'model_unavailable', message: 'The model provider is unavailable.' };
    await expect(streaming()).rejects.toSatisfy(
      (error) => error instanceof APIError && error.code === expected.code && error.message === expected.message,
    );
    await expect(client.chat.completions.stream(failing).finalChatCompletion()).rejects.toBeInstanceOf(APIError);
    const answered = await client.chat.completions.create(failing).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(answered).toBeInstanceOf(APIError);
    expect(answered).toMatchObject({ status: 502, ...expected, message: `502 ${expected.message}` });
  });

  it('raises a failed run read as format=openai from the events route as an APIError', async () => {
    const runId = await bridge.startRun({ model: 'scripted:unavailable' });
    await bridge.readEvents(runId);
    const chunks = Stream.fromSSEResponse<ChatCompletionChunk>(
      await bridge.fetch(`/v1/runs/${runId}/events?format=openai`),
      new AbortController(),
    );
    const read = async () => {
      for await (const chunk of chunks) void chunk;
    };
    await expect(read()).rejects.toSatisfy((error) => error instanceof APIError && error.code === 'model_unavailable');
  });
});
