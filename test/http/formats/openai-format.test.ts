import { describe, expect, it } from 'vitest';
import { openaiFormat } from '../../../src/http/formats/openai-format.js';
import { DEFAULT_FORMAT_OPTIONS } from '../../../src/http/formats/stream-format.js';
import { type ChatCompletionChunk, ChatCompletionChunkSchema } from '../../../src/protocol/chat-completion.js';
import type { RunEventInput } from '../../../src/protocol/run-events.js';
import { parseSseText } from '../../support/parse-sse-text.js';
import { logOf, streamedCallsEpisode, T0, twoTurnEpisode } from './log-of.js';

/** Every frame of the log in format=openai, then the end, as SSE text. */
function stream(inputs: RunEventInput[], options = DEFAULT_FORMAT_OPTIONS): string {
  const { log, context } = logOf(inputs, options);
  return (
    log.entries.map((entry) => openaiFormat.frame(entry, context)).join('') + openaiFormat.end(log.terminal!, context)
  );
}

/** The JSON payloads of a format=openai stream, `[DONE]` excluded. */
function payloads(text: string): unknown[] {
  return parseSseText(text)
    .filter((message) => message.data !== '[DONE]')
    .map((message) => JSON.parse(message.data) as unknown);
}

function chunks(inputs: RunEventInput[], options = DEFAULT_FORMAT_OPTIONS): ChatCompletionChunk[] {
  return payloads(stream(inputs, options)).map((payload) => ChatCompletionChunkSchema.parse(payload));
}

const deltas = (list: ChatCompletionChunk[]) => list.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));

describe('format=openai', () => {
  it('sends only unnamed data frames without ids, every one a chat.completion.chunk of the run, then data: [DONE]', () => {
    const text = stream(twoTurnEpisode);
    const messages = parseSseText(text);
    expect(messages.every((message) => message.event === undefined && message.id === undefined)).toBe(true);
    expect(messages.at(-1)!.data).toBe('[DONE]');
    for (const chunk of chunks(twoTurnEpisode)) {
      expect(chunk).toMatchObject({
        id: 'chatcmpl-run_test',
        object: 'chat.completion.chunk',
        created: T0 / 1000,
        model: 'scripted:test',
      });
    }
  });

  it('opens with a role chunk, as OpenAI does', () => {
    expect(chunks(twoTurnEpisode)[0]!.choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]);
  });

  it('puts text in delta.content and reasoning in delta.reasoning_content, a blank line between the turns of each', () => {
    const all = deltas(chunks(twoTurnEpisode));
    expect(all.map((delta) => delta.content ?? '').join('')).toBe('Let me add.\n\nIt is 4.');
    expect(all.map((delta) => delta.reasoning_content ?? '').join('')).toBe('Add them.');
    const secondTurn: RunEventInput[] = [
      ...twoTurnEpisode.slice(0, 9),
      { event: 'reasoning.delta', delta: 'Submit.', turn: 2 },
      ...twoTurnEpisode.slice(9),
    ];
    expect(
      deltas(chunks(secondTurn))
        .map((delta) => delta.reasoning_content ?? '')
        .join(''),
    ).toBe('Add them.\n\nSubmit.');
  });

  it('sends a reasoning.available only when its turn streamed no reasoning', () => {
    const blocksOnly = twoTurnEpisode.filter((event) => event.event !== 'reasoning.delta');
    expect(deltas(chunks(blocksOnly)).filter((delta) => delta.reasoning_content !== undefined)).toEqual([
      { reasoning_content: 'Add them.' },
    ]);
  });

  it('sends each tool call whole in delta.tool_calls, at its run-wide call_index', () => {
    const calls = deltas(chunks(twoTurnEpisode)).flatMap((delta) => delta.tool_calls ?? []);
    expect(calls).toEqual([
      {
        index: 0,
        id: 'call_a',
        type: 'function',
        function: { name: 'calculator', arguments: '{"expression":"2 + 2"}' },
      },
      { index: 1, id: 'call_b', type: 'function', function: { name: 'submit', arguments: '{"answer":4}' } },
    ]);
  });

  it('streams the pieces of a call whose arguments streamed, naming it in the first, and nothing more at its tool.started', () => {
    const calls = deltas(chunks(streamedCallsEpisode)).flatMap((delta) => delta.tool_calls ?? []);
    expect(calls).toEqual([
      { index: 0, id: 'call_a', type: 'function', function: { name: 'calculator', arguments: '' } },
      { index: 0, function: { arguments: '{"expression":' } },
      { index: 1, id: 'call_b', type: 'function', function: { name: 'submit', arguments: '' } },
      { index: 0, function: { arguments: '"2 + 2"}' } },
      { index: 1, function: { arguments: '{"answer":4}' } },
    ]);
  });

  it('with agent_events=1, lets tool.progress ride along but not the argument pieces, which are in the chunks', () => {
    const carried = chunks(streamedCallsEpisode, { agentEvents: true }).flatMap((chunk) =>
      chunk.agent_event ? [chunk.agent_event.event] : [],
    );
    expect(carried).toContain('tool.progress');
    expect(carried).not.toContain('tool.arguments.delta');
  });

  it('ends a completed run with a finish_reason chunk, then a usage chunk with choices: []', () => {
    const [finish, usage] = chunks(twoTurnEpisode).slice(-2);
    expect(finish!.choices).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
    expect(usage).toMatchObject({ choices: [], usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 } });
  });

  it('says "stop" for an episode that ended by itself and "length" for one cut at max_turns', () => {
    const ending = (stop_reason: 'finished' | 'no_tool_calls' | 'max_turns'): RunEventInput[] => [
      twoTurnEpisode[0]!,
      { ...(twoTurnEpisode.at(-1) as Extract<RunEventInput, { event: 'run.completed' }>), stop_reason },
    ];
    const finishReason = (inputs: RunEventInput[]) =>
      chunks(inputs)
        .flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason))
        .at(-1);
    expect(finishReason(ending('finished'))).toBe('stop');
    expect(finishReason(ending('no_tool_calls'))).toBe('stop');
    expect(finishReason(ending('max_turns'))).toBe('length');
  });

  it('says nothing for tool.completed and turn.completed', () => {
    const { log, context } = logOf(twoTurnEpisode);
    for (const entry of log.entries.filter((candidate) =>
      ['tool.completed', 'turn.completed'].includes(candidate.event.event),
    )) {
      expect(openaiFormat.frame(entry, context)).toBe('');
    }
  });

  it('ends a failed run with its error body, then [DONE], and no finish or usage chunk', () => {
    const failed: RunEventInput[] = [
      ...twoTurnEpisode.slice(0, 5),
      { event: 'run.failed', error: 'The model provider is unavailable.', code: 'model_unavailable' },
    ];
    const all = payloads(stream(failed));
    expect(all.at(-1)).toEqual({ error: { code: 'model_unavailable', message: 'The model provider is unavailable.' } });
    expect(all.some((payload) => (payload as ChatCompletionChunk).usage !== undefined)).toBe(false);
    expect(parseSseText(stream(failed)).at(-1)!.data).toBe('[DONE]');
  });

  it('ends a cancelled run with an error body of code "cancelled" that says why', () => {
    const cancelled: RunEventInput[] = [twoTurnEpisode[0]!, { event: 'run.cancelled', reason: 'client' }];
    expect(payloads(stream(cancelled)).at(-1)).toEqual({
      error: { code: 'cancelled', message: 'The run was cancelled by the client.', details: { reason: 'client' } },
    });
  });

  it('with agent_events=1, lets every event but the deltas ride along first, as a choices: [] chunk holding the typed event', () => {
    const { log } = logOf(twoTurnEpisode);
    const all = chunks(twoTurnEpisode, { agentEvents: true });
    const carried = all.filter((chunk) => chunk.agent_event !== undefined);
    expect(carried.every((chunk) => chunk.choices.length === 0)).toBe(true);
    expect(carried.map((chunk) => chunk.agent_event)).toEqual(
      log.events().filter((event) => event.event !== 'message.delta' && event.event !== 'reasoning.delta'),
    );
    // The typed tool.started comes just before the chunk that projects it.
    const toolStarted = all.findIndex((chunk) => chunk.agent_event?.event === 'tool.started');
    expect(all[toolStarted + 1]!.choices[0]!.delta.tool_calls?.[0]?.id).toBe('call_a');
    // Without the option, the chunks are those of the plain format.
    expect(all.filter((chunk) => chunk.agent_event === undefined)).toEqual(chunks(twoTurnEpisode));
  });

  it('ends every stream with [DONE]', () => {
    expect(openaiFormat.end(logOf(twoTurnEpisode).log.terminal!, logOf(twoTurnEpisode).context)).toBe(
      'data: [DONE]\n\n',
    );
  });
});
