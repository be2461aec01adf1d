import { EventSchema } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import { agUiFormat } from '../../../src/http/formats/ag-ui-format.js';
import type { RunEventInput } from '../../../src/protocol/run-events.js';
import { parseSseText } from '../../support/parse-sse-text.js';
import { logOf, streamedCallsEpisode, T0, twoTurnEpisode } from './log-of.js';

interface Frame {
  type: string;
  [field: string]: unknown;
}

/** The AG-UI events of every event of the log, in order, each checked against @ag-ui/core's schema. */
function agUiEvents(inputs: RunEventInput[]): Frame[] {
  const { log, context } = logOf(inputs);
  const text =
    log.entries.map((entry) => agUiFormat.frame(entry, context)).join('') + agUiFormat.end(log.terminal!, context);
  return parseSseText(text).map((message) => {
    const event = JSON.parse(message.data) as Frame;
    EventSchema.parse(event);
    return event;
  });
}

const types = (events: Frame[]) => events.map((event) => event.type);

describe('format=ag-ui', () => {
  it('plays a two-turn episode as AG-UI events in AG-UI order, from RUN_STARTED to RUN_FINISHED', () => {
    expect(types(agUiEvents(twoTurnEpisode))).toEqual([
      'RUN_STARTED',
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'REASONING_MESSAGE_CONTENT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      // turn.completed closes what the turn opened
      'TEXT_MESSAGE_END',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'RUN_FINISHED',
    ]);
  });

  it('opens with RUN_STARTED naming the run as thread and run, with run.started as rawEvent', () => {
    expect(agUiEvents(twoTurnEpisode)[0]).toMatchObject({
      type: 'RUN_STARTED',
      threadId: 'run_test',
      runId: 'run_test',
      rawEvent: { event: 'run.started', env: 'arith', model: 'scripted:test' },
    });
  });

  it('gives each turn one assistant text message, and its tool calls that message as parent', () => {
    const events = agUiEvents(twoTurnEpisode);
    const text = events.filter((event) => event.type.startsWith('TEXT_MESSAGE'));
    expect(text.map((event) => event.messageId)).toEqual([
      'run_test:turn-1',
      'run_test:turn-1',
      'run_test:turn-1',
      'run_test:turn-1',
      'run_test:turn-2',
      'run_test:turn-2',
      'run_test:turn-2',
    ]);
    expect(
      text.filter((event) => event.type === 'TEXT_MESSAGE_START').every((event) => event.role === 'assistant'),
    ).toBe(true);
    expect(events.filter((event) => event.type === 'TOOL_CALL_START')).toEqual([
      expect.objectContaining({ toolCallId: 'call_a', toolCallName: 'calculator', parentMessageId: 'run_test:turn-1' }),
      expect.objectContaining({ toolCallId: 'call_b', toolCallName: 'submit', parentMessageId: 'run_test:turn-2' }),
    ]);
  });

  it('sends the whole arguments JSON in one TOOL_CALL_ARGS, and the output as TOOL_CALL_RESULT with tool.completed as rawEvent', () => {
    const events = agUiEvents(twoTurnEpisode);
    expect(events.find((event) => event.type === 'TOOL_CALL_ARGS')).toMatchObject({
      toolCallId: 'call_a',
      delta: '{"expression":"2 + 2"}',
    });
    expect(events.filter((event) => event.type === 'TOOL_CALL_RESULT').at(-1)).toMatchObject({
      toolCallId: 'call_b',
      messageId: 'run_test:call_b:result',
      role: 'tool',
      content: 'Correct.',
      rawEvent: { event: 'tool.completed', reward: 1, finished: true },
    });
  });

  it('sends reasoning.available as the whole reasoning only when its turn streamed none', () => {
    const blocksOnly = agUiEvents(twoTurnEpisode.filter((event) => event.event !== 'reasoning.delta'));
    expect(blocksOnly.filter((event) => event.type.startsWith('REASONING'))).toEqual([
      expect.objectContaining({ type: 'REASONING_START', messageId: 'run_test:turn-1:reasoning' }),
      expect.objectContaining({
        type: 'REASONING_MESSAGE_START',
        messageId: 'run_test:turn-1:reasoning',
        role: 'reasoning',
      }),
      expect.objectContaining({ type: 'REASONING_MESSAGE_CONTENT', delta: 'Add them.' }),
      expect.objectContaining({ type: 'REASONING_MESSAGE_END' }),
      expect.objectContaining({ type: 'REASONING_END' }),
    ]);
  });

  it('ends a completed run with RUN_FINISHED, outcome success, the episode as result and the usage', () => {
    expect(agUiEvents(twoTurnEpisode).at(-1)).toMatchObject({
      type: 'RUN_FINISHED',
      threadId: 'run_test',
      runId: 'run_test',
      outcome: { type: 'success' },
      result: { output: 'It is 4.', reward: 1, finished: true, turns: 2, stop_reason: 'finished' },
      usage: [{ model: 'scripted:test', inputTokens: 20, outputTokens: 10, totalTokens: 30 }],
    });
  });

  it('closes the text a failing turn left open, then ends with RUN_ERROR carrying the message and code', () => {
    const failed = agUiEvents([
      ...twoTurnEpisode.slice(0, 4),
      { event: 'run.failed', error: 'The stream broke.', code: 'model_stream_interrupted' },
    ]);
    expect(types(failed).slice(-4)).toEqual([
      'TEXT_MESSAGE_END',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'RUN_ERROR',
    ]);
    expect(failed.at(-1)).toMatchObject({ message: 'The stream broke.', code: 'model_stream_interrupted' });
  });

  it('ends a cancelled run with RUN_FINISHED, outcome cancelled, and run.cancelled (with its reason) as rawEvent', () => {
    const cancelled = agUiEvents([
      twoTurnEpisode[0]!,
      twoTurnEpisode[3]!,
      { event: 'run.cancelled', reason: 'shutdown' },
    ]);
    expect(types(cancelled)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(cancelled.at(-1)).toMatchObject({
      outcome: { type: 'cancelled' },
      rawEvent: { event: 'run.cancelled', reason: 'shutdown' },
    });
  });

  it('opens a call at its first argument piece, streams the pieces as TOOL_CALL_ARGS and ends it with the turn', () => {
    expect(types(agUiEvents(streamedCallsEpisode))).toEqual([
      'RUN_STARTED',
      'REASONING_START',
      'REASONING_MESSAGE_START',
      'REASONING_MESSAGE_CONTENT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_ARGS',
      // turn.completed: the model's stream is over, so the calls' arguments are whole
      'TOOL_CALL_END',
      'TOOL_CALL_END',
      'TEXT_MESSAGE_END',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      // tool.started of a call that streamed adds nothing; tool.progress is a CUSTOM event
      'CUSTOM',
      'TOOL_CALL_RESULT',
      'TOOL_CALL_RESULT',
      'RUN_FINISHED',
    ]);
  });

  it("gives a streamed call its turn's message as parent, and its pieces joined as arguments", () => {
    const events = agUiEvents(streamedCallsEpisode);
    expect(events.filter((event) => event.type === 'TOOL_CALL_START')).toEqual([
      expect.objectContaining({ toolCallId: 'call_a', toolCallName: 'calculator', parentMessageId: 'run_test:turn-1' }),
      expect.objectContaining({ toolCallId: 'call_b', toolCallName: 'submit', parentMessageId: 'run_test:turn-1' }),
    ]);
    const args = (id: string) =>
      events
        .filter((event) => event.type === 'TOOL_CALL_ARGS' && event.toolCallId === id)
        .map((event) => event.delta)
        .join('');
    expect(args('call_a')).toBe('{"expression":"2 + 2"}');
    expect(args('call_b')).toBe('{"answer":4}');
    expect(events.find((event) => event.type === 'CUSTOM')).toMatchObject({
      name: 'tool.progress',
      value: { event: 'tool.progress', tool_call_id: 'call_a', elapsed: 5 },
    });
  });

  it('ends a call the model was still writing when the run failed, before RUN_ERROR', () => {
    const failed = agUiEvents([
      ...streamedCallsEpisode.slice(0, 5),
      { event: 'run.failed', error: 'The stream broke.', code: 'model_stream_interrupted' },
    ]);
    expect(types(failed).slice(-6)).toEqual([
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TEXT_MESSAGE_END',
      'REASONING_MESSAGE_END',
      'REASONING_END',
      'RUN_ERROR',
    ]);
  });

  it("stamps every AG-UI event with its event's time in whole milliseconds", () => {
    const { log } = logOf(twoTurnEpisode);
    const events = agUiEvents(twoTurnEpisode);
    expect(events[0]!.timestamp).toBe(T0);
    expect(events.at(-1)!.timestamp).toBe(Math.round(log.terminal!.timestamp * 1000));
    expect(events.every((event) => Number.isInteger(event.timestamp))).toBe(true);
  });

  it("puts the event's seq as id on the last frame of its group only, and writes no event names and no [DONE]", () => {
    const { log, context } = logOf(twoTurnEpisode);
    const toolStarted = log.entries.find((entry) => entry.event.event === 'tool.started')!;
    expect(parseSseText(agUiFormat.frame(toolStarted, context)).map((message) => message.id)).toEqual([
      undefined,
      undefined,
      String(toolStarted.event.seq),
    ]);
    const all = parseSseText(log.entries.map((entry) => agUiFormat.frame(entry, context)).join(''));
    expect(all.every((message) => message.event === undefined && message.data !== '[DONE]')).toBe(true);
    expect(agUiFormat.end(log.terminal!, context)).toBe('');
  });
});
