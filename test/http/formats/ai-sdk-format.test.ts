import { readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { aiSdkFormat } from '../../../src/http/formats/ai-sdk-format.js';
import type { RunEventInput } from '../../../src/protocol/run-events.js';
import { parseSseText } from '../../support/parse-sse-text.js';
import { logOf, streamedCallsEpisode, twoTurnEpisode } from './log-of.js';

type Chunk = UIMessageChunk & Record<string, unknown>;

/**
 * The UI message stream of a log: every frame's chunk, each checked against the `ai` package's own
 * chunk schema, the `[DONE]` at the end taken off.
 */
async function chunksOf(inputs: RunEventInput[]): Promise<Chunk[]> {
  const { log, context } = logOf(inputs);
  const text =
    log.entries.map((entry) => aiSdkFormat.frame(entry, context)).join('') + aiSdkFormat.end(log.terminal!, context);
  const messages = parseSseText(text);
  expect(messages.at(-1)!.data).toBe('[DONE]');
  const schema = uiMessageChunkSchema();
  const chunks: Chunk[] = [];
  for (const message of messages.slice(0, -1)) {
    const checked = await schema.validate!(JSON.parse(message.data));
    if (!checked.success) throw checked.error;
    chunks.push(checked.value as Chunk);
  }
  return chunks;
}

/** What the `ai` package's reader makes of `chunks`: the last state of the message, and the errors it reported. */
async function readMessage(chunks: Chunk[]): Promise<{ message: UIMessage | undefined; errors: string[] }> {
  const errors: string[] = [];
  let message: UIMessage | undefined;
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  for await (const state of readUIMessageStream({
    stream,
    onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
  }))
    message = state;
  return { message, errors };
}

const types = (chunks: Chunk[]) => chunks.map((chunk) => chunk.type);

describe('format=ai-sdk', () => {
  it('plays a two-turn episode as one message of two steps, in the UI message stream order', async () => {
    expect(types(await chunksOf(twoTurnEpisode))).toEqual([
      'start',
      'data-runbridge-run',
      'start-step',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-delta',
      'text-start',
      'text-delta',
      'text-delta',
      // turn.completed closes what the turn opened
      'text-end',
      'reasoning-end',
      'tool-input-available',
      'data-runbridge-tool',
      'tool-output-available',
      'data-runbridge-tool',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-available',
      'data-runbridge-tool',
      'tool-output-available',
      'data-runbridge-tool',
      'finish-step',
      'data-runbridge-run',
      'finish',
    ]);
  });

  it("becomes, through the ai package's reader, a message with the run's text, reasoning and tool calls", async () => {
    const { message, errors } = await readMessage(await chunksOf(twoTurnEpisode));
    expect(errors).toEqual([]);
    expect(message).toMatchObject({ id: 'run_test', role: 'assistant' });
    expect(
      message!.parts.filter((part) => part.type !== 'data-runbridge-tool' && part.type !== 'data-runbridge-run'),
    ).toEqual([
      { type: 'step-start' },
      { type: 'reasoning', id: 'turn-1-reasoning', text: 'Add them.', state: 'done' },
      { type: 'text', text: 'Let me add.', state: 'done' },
      {
        type: 'dynamic-tool',
        toolName: 'calculator',
        toolCallId: 'call_a',
        state: 'output-available',
        input: { expression: '2 + 2' },
        output: '2 + 2 = 4',
      },
      { type: 'step-start' },
      { type: 'text', text: 'It is 4.', state: 'done' },
      {
        type: 'dynamic-tool',
        toolName: 'submit',
        toolCallId: 'call_b',
        state: 'output-available',
        input: { answer: 4 },
        output: 'Correct.',
      },
    ]);
  });

  it("keeps runbridge's own facts in one data part per call and one for the run, updated in place", async () => {
    const { message } = await readMessage(await chunksOf(streamedCallsEpisode));
    const data = message!.parts.filter((part) => part.type.startsWith('data-'));
    expect(data).toEqual([
      {
        type: 'data-runbridge-run',
        id: 'run_test',
        data: {
          run_id: 'run_test',
          status: 'completed',
          reward: 1,
          rewards: [
            { tool_call_id: 'call_a', tool: 'calculator', turn: 1, reward: null },
            { tool_call_id: 'call_b', tool: 'submit', turn: 1, reward: 1 },
          ],
          finished: true,
          turns: 1,
          stop_reason: 'finished',
          usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
        },
      },
      {
        type: 'data-runbridge-tool',
        id: 'call_a',
        data: {
          tool_call_id: 'call_a',
          tool: 'calculator',
          turn: 1,
          call_index: 0,
          status: 'completed',
          duration: 6.5,
          reward: null,
          finished: false,
        },
      },
      {
        type: 'data-runbridge-tool',
        id: 'call_b',
        data: {
          tool_call_id: 'call_b',
          tool: 'submit',
          turn: 1,
          call_index: 1,
          status: 'completed',
          duration: 0.01,
          reward: 1,
          finished: true,
        },
      },
    ]);
  });

  it('sends the run as it starts and each tool.progress as the running state of the call', async () => {
    const chunks = await chunksOf(streamedCallsEpisode);
    expect(chunks[1]).toEqual({
      type: 'data-runbridge-run',
      id: 'run_test',
      data: {
        run_id: 'run_test',
        status: 'running',
        env: 'arith',
        task: { split: 'train', index: 0 },
        model: 'scripted:test',
      },
    });
    expect(chunks.filter((chunk) => chunk.type === 'data-runbridge-tool' && chunk.id === 'call_a')).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ status: 'running', elapsed: 0 }) }),
      expect.objectContaining({ data: expect.objectContaining({ status: 'running', elapsed: 5 }) }),
      expect.objectContaining({ data: expect.objectContaining({ status: 'completed', duration: 6.5 }) }),
    ]);
  });

  it('streams the arguments of forming calls as tool input, then the parsed input at tool.started', async () => {
    const chunks = await chunksOf(streamedCallsEpisode);
    expect(chunks.filter((chunk) => chunk.type.startsWith('tool-input'))).toEqual([
      { type: 'tool-input-start', toolCallId: 'call_a', toolName: 'calculator', dynamic: true },
      { type: 'tool-input-delta', toolCallId: 'call_a', inputTextDelta: '{"expression":' },
      { type: 'tool-input-start', toolCallId: 'call_b', toolName: 'submit', dynamic: true },
      { type: 'tool-input-delta', toolCallId: 'call_a', inputTextDelta: '"2 + 2"}' },
      { type: 'tool-input-delta', toolCallId: 'call_b', inputTextDelta: '{"answer":4}' },
      {
        type: 'tool-input-available',
        toolCallId: 'call_a',
        toolName: 'calculator',
        input: { expression: '2 + 2' },
        dynamic: true,
      },
      { type: 'tool-input-available', toolCallId: 'call_b', toolName: 'submit', input: { answer: 4 }, dynamic: true },
    ]);
    const { message, errors } = await readMessage(chunks);
    expect(errors).toEqual([]);
    expect(message!.parts.filter((part) => part.type === 'dynamic-tool')).toEqual([
      expect.objectContaining({ toolCallId: 'call_a', input: { expression: '2 + 2' }, output: '2 + 2 = 4' }),
      expect.objectContaining({ toolCallId: 'call_b', input: { answer: 4 }, output: 'Correct.' }),
    ]);
  });

  it('shows a forming call as input-streaming, its input parsed from the pieces so far', async () => {
    const forming = streamedCallsEpisode.slice(0, 5);
    const { log, context } = logOf(forming);
    const schema = uiMessageChunkSchema();
    const chunks: Chunk[] = [];
    for (const entry of log.entries)
      for (const message of parseSseText(aiSdkFormat.frame(entry, context))) {
        const checked = await schema.validate!(JSON.parse(message.data));
        if (!checked.success) throw checked.error;
        chunks.push(checked.value as Chunk);
      }
    const { message, errors } = await readMessage(chunks);
    expect(errors).toEqual([]);
    expect(message!.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({
      toolCallId: 'call_a',
      toolName: 'calculator',
      state: 'input-streaming',
    });
  });

  it('ends a call that failed with tool-output-error carrying its message', async () => {
    const failedCall = twoTurnEpisode.map((event) =>
      event.event === 'tool.completed' && event.tool_call_id === 'call_a'
        ? { ...event, error: true, error_message: 'Division by zero.', output: 'Division by zero.' }
        : event,
    );
    const chunks = await chunksOf(failedCall);
    expect(chunks.find((chunk) => chunk.type === 'tool-output-error')).toEqual({
      type: 'tool-output-error',
      toolCallId: 'call_a',
      errorText: 'Division by zero.',
      dynamic: true,
    });
    const { message } = await readMessage(chunks);
    expect(message!.parts.find((part) => part.type === 'dynamic-tool')).toMatchObject({
      state: 'output-error',
      input: { expression: '2 + 2' },
      errorText: 'Division by zero.',
    });
    expect(message!.parts.find((part) => part.type === 'data-runbridge-tool' && part.id === 'call_a')).toMatchObject({
      data: { status: 'failed' },
    });
  });

  it('ends each call announced after the one that finished the episode as not run', async () => {
    const extra: RunEventInput = {
      event: 'tool.arguments.delta',
      tool: 'hint',
      tool_call_id: 'call_c',
      delta: '{}',
      turn: 1,
      call_index: 2,
    };
    const episode = [...streamedCallsEpisode.slice(0, 8), extra, ...streamedCallsEpisode.slice(8)];
    const chunks = await chunksOf(episode);
    expect(types(chunks).slice(-5)).toEqual([
      'data-runbridge-tool',
      'tool-output-error',
      'finish-step',
      'data-runbridge-run',
      'finish',
    ]);
    expect(chunks.at(-4)).toEqual({
      type: 'tool-output-error',
      toolCallId: 'call_c',
      errorText: 'Not run: the episode had already finished.',
      dynamic: true,
    });
    const { message, errors } = await readMessage(chunks);
    expect(errors).toEqual([]);
    expect(message!.parts.find((part) => part.type === 'dynamic-tool' && part.toolCallId === 'call_c')).toMatchObject({
      state: 'output-error',
      input: {},
    });
  });

  it('closes what a failing turn left open, ends its forming call, then sends error as the last chunk', async () => {
    const failed = await chunksOf([
      ...streamedCallsEpisode.slice(0, 5),
      { event: 'run.failed', error: 'The stream broke.', code: 'model_stream_interrupted' },
    ]);
    expect(types(failed).slice(-7)).toEqual([
      'tool-input-delta',
      'text-end',
      'reasoning-end',
      'tool-output-error',
      'finish-step',
      'data-runbridge-run',
      'error',
    ]);
    expect(failed.at(-2)).toMatchObject({
      data: { status: 'failed', error: 'The stream broke.', code: 'model_stream_interrupted' },
    });
    expect(failed.at(-1)).toEqual({ type: 'error', errorText: 'The stream broke.' });
    const { message, errors } = await readMessage(failed);
    expect(errors).toEqual(['The stream broke.']);
    expect(message!.parts.find((part) => part.type === 'text')).toMatchObject({ text: 'Adding.', state: 'done' });
  });

  it('ends a cancelled run with abort, saying why', async () => {
    const cancelled = await chunksOf([
      twoTurnEpisode[0]!,
      twoTurnEpisode[3]!,
      { event: 'run.cancelled', reason: 'client' },
    ]);
    expect(types(cancelled)).toEqual([
      'start',
      'data-runbridge-run',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'data-runbridge-run',
      'abort',
    ]);
    expect(cancelled.at(-1)).toEqual({ type: 'abort', reason: 'The run was cancelled (client).' });
  });

  it('says finishReason length when the run stopped at max_turns, and opens no step for a run without turns', async () => {
    const cut = twoTurnEpisode.map((event) =>
      event.event === 'run.completed' ? { ...event, stop_reason: 'max_turns' as const } : event,
    );
    expect((await chunksOf(cut)).at(-1)).toEqual({ type: 'finish', finishReason: 'length' });
    expect(
      types(
        await chunksOf([twoTurnEpisode[0]!, { event: 'run.failed', error: 'No session.', code: 'ors_unavailable' }]),
      ),
    ).toEqual(['start', 'data-runbridge-run', 'data-runbridge-run', 'error']);
  });

  it("puts the event's seq as id on the last frame of its group only, and names the protocol in a header", () => {
    const { log, context } = logOf(twoTurnEpisode);
    const terminal = log.entries.at(-1)!;
    expect(parseSseText(aiSdkFormat.frame(terminal, context)).map((message) => message.id)).toEqual([
      undefined,
      undefined,
      String(terminal.event.seq),
    ]);
    expect(aiSdkFormat.headers).toEqual({ 'x-vercel-ai-ui-message-stream': 'v1' });
  });
});
