import { EventSchema } from '@ag-ui/core/schemas';
import { readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { agUiFormat } from '../../../src/http/formats/ag-ui-format.js';
import { aiSdkFormat } from '../../../src/http/formats/ai-sdk-format.js';
import { combinedFormat } from '../../../src/http/formats/combined-format.js';
import { openaiFormat } from '../../../src/http/formats/openai-format.js';
import type { StreamFormat } from '../../../src/http/formats/stream-format.js';
import { DEFAULT_FORMAT_OPTIONS } from '../../../src/http/formats/stream-format.js';
import { parseSseText } from '../../support/parse-sse-text.js';
import { hitlEpisode } from './hitl-episode.js';
import { logOf } from './log-of.js';

/**
 * A person in the loop in every stream format (docs/protocol.md §7): the episode of `hitl-episode.ts`
 * — two calls waiting for approval (one denied, one approved with edits), chat mode waiting twice, a
 * message — framed by each format and read back as each format's own clients read it.
 */

type Frame = Record<string, unknown> & { type: string };

function framesOf(format: StreamFormat, options = DEFAULT_FORMAT_OPTIONS): string[] {
  const { log, context } = logOf(hitlEpisode, options);
  const text = log.entries.map((entry) => format.frame(entry, context)).join('') + format.end(log.terminal!, context);
  return parseSseText(text).map((message) => message.data);
}

describe('format=ag-ui with a person in the loop', () => {
  const events = () => framesOf(agUiFormat).map((data) => EventSchema.parse(JSON.parse(data)) as unknown as Frame);

  it('finishes the AG-UI run with an interrupt while the run waits, and resumes it in a new AG-UI run', () => {
    expect(events().map((event) => [event.type, event.runId ?? ''].join(' ').trim())).toEqual([
      'RUN_STARTED run_test',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      // alpha waits
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'RUN_FINISHED run_test',
      // beta waits too: both listed
      'RUN_STARTED run_test:4',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'RUN_FINISHED run_test:4',
      // beta denied: alpha still waits
      'RUN_STARTED run_test:5',
      'TOOL_CALL_RESULT',
      'RUN_FINISHED run_test:5',
      // alpha approved: the run goes on
      'RUN_STARTED run_test:6',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED run_test:6',
      // the message ends chat mode's wait
      'RUN_STARTED run_test:12',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED run_test:12',
      // the input timeout ends the second wait and the run
      'RUN_STARTED run_test:16',
      'RUN_FINISHED run_test:16',
    ]);
  });

  it('lists every call still waiting in the interrupt outcome, with the decision body as its response schema', () => {
    const finished = events().filter((event) => event.type === 'RUN_FINISHED');
    const interrupts = finished.map((event) => {
      const outcome = event.outcome as { type: string; interrupts?: Array<Record<string, unknown>> };
      return outcome.type === 'interrupt' ? outcome.interrupts!.map((interrupt) => interrupt.id) : outcome.type;
    });
    expect(interrupts).toEqual([
      ['appr_a'],
      ['appr_a', 'appr_b'],
      ['appr_a'],
      ['run_test:input:11'],
      ['run_test:input:15'],
      'success',
    ]);
    const first = (finished[0]!.outcome as { interrupts: Array<Record<string, unknown>> }).interrupts[0]!;
    expect(first).toMatchObject({
      reason: 'tool_approval',
      toolCallId: 'call_a',
      message: 'Approve echo alpha?',
      expiresAt: new Date(1_764_000_600_000).toISOString(),
      responseSchema: { type: 'object', required: ['decision'] },
    });
  });

  it('answers each interrupt in the RUN_STARTED that resumes from it, and tells the denial as the call result', () => {
    const all = events();
    const resumes = all
      .filter((event) => event.type === 'RUN_STARTED')
      .map((event) => (event.input as { resume?: unknown[] } | undefined)?.resume ?? []);
    expect(resumes).toEqual([
      [],
      [],
      [
        {
          interruptId: 'appr_b',
          status: 'resolved',
          payload: { decision: 'deny', arguments: { text: 'beta' }, edited: false, by: 'client', reason: 'no beta' },
        },
      ],
      [
        {
          interruptId: 'appr_a',
          status: 'resolved',
          payload: { decision: 'approve', arguments: { text: 'ALPHA' }, edited: true, by: 'client' },
        },
      ],
      [{ interruptId: 'run_test:input:11', status: 'resolved', payload: { message_id: 'msg_1', content: 'Thanks!' } }],
      [{ interruptId: 'run_test:input:15', status: 'cancelled' }],
    ]);
    const denial = all.find((event) => event.type === 'TOOL_CALL_RESULT' && event.toolCallId === 'call_b')!;
    expect(denial.content).toContain('no beta');
    const user = all.find((event) => event.type === 'TEXT_MESSAGE_START' && event.role === 'user')!;
    expect(user.messageId).toBe('run_test:msg_1');
  });
});

describe('format=ai-sdk with a person in the loop', () => {
  async function chunks(): Promise<UIMessageChunk[]> {
    const schema = uiMessageChunkSchema();
    const frames = framesOf(aiSdkFormat);
    expect(frames.at(-1)).toBe('[DONE]');
    const checked: UIMessageChunk[] = [];
    for (const data of frames.slice(0, -1)) {
      const result = await schema.validate!(JSON.parse(data));
      if (!result.success) throw result.error;
      checked.push(result.value);
    }
    return checked;
  }

  it("uses the AI SDK's own approval chunks, each valid for its chunk schema", async () => {
    const types = (await chunks()).map((chunk) => chunk.type);
    expect(types.filter((type) => type.startsWith('tool-'))).toEqual([
      'tool-input-available',
      'tool-approval-request',
      'tool-input-available',
      'tool-approval-request',
      'tool-output-denied',
      'tool-input-available',
      'tool-output-available',
    ]);
  });

  it('reads as one message whose denied call is output-denied and approved one output-available, with the decisions', async () => {
    const errors: string[] = [];
    const stream = new ReadableStream<UIMessageChunk>({
      async start(controller) {
        for (const chunk of await chunks()) controller.enqueue(chunk);
        controller.close();
      },
    });
    let message: UIMessage | undefined;
    for await (const state of readUIMessageStream({ stream, onError: (error) => errors.push(String(error)) }))
      message = state;
    expect(errors).toEqual([]);
    const tools = message!.parts.filter((part) => part.type === 'dynamic-tool');
    expect(tools.map((part) => [part.toolCallId, part.state])).toEqual([
      ['call_a', 'output-available'],
      ['call_b', 'output-denied'],
    ]);
    expect(tools[0]).toMatchObject({ input: { text: 'ALPHA' }, output: 'ALPHA', approval: { id: 'appr_a' } });
    const data = message!.parts.filter((part) => part.type.startsWith('data-runbridge-')) as Array<{
      type: string;
      id: string;
      data: Record<string, unknown>;
    }>;
    expect(data.filter((part) => part.type === 'data-runbridge-approval').map((part) => part.data)).toEqual([
      expect.objectContaining({ approval_id: 'appr_a', status: 'approved', edited: true, by: 'client' }),
      expect.objectContaining({ approval_id: 'appr_b', status: 'denied', reason: 'no beta' }),
    ]);
    expect(data.find((part) => part.type === 'data-runbridge-message')!.data).toEqual({
      message_id: 'msg_1',
      content: 'Thanks!',
      turn: 3,
    });
    expect(data.find((part) => part.type === 'data-runbridge-run')!.data).toMatchObject({
      status: 'completed',
      stop_reason: 'no_tool_calls',
    });
  });

  it('shows chat mode waiting as the run part awaiting_input, and running again once the message comes', async () => {
    const runParts = (await chunks())
      .filter((chunk) => chunk.type === 'data-runbridge-run')
      .map((chunk) => (chunk as { data: { status: string } }).data.status);
    expect(runParts).toEqual(['running', 'awaiting_input', 'running', 'awaiting_input', 'completed']);
  });
});

describe('format=openai and format=combined with a person in the loop', () => {
  it('lists every call the model made in delta.tool_calls (the denied one too) and, with agent_events=1, carries the new events', () => {
    const chunks = framesOf(openaiFormat, { agentEvents: true })
      .filter((data) => data !== '[DONE]')
      .map((data) => JSON.parse(data) as Record<string, unknown>);
    const calls = chunks.flatMap((chunk) => {
      const choices = chunk.choices as Array<{ delta: { tool_calls?: Array<Record<string, unknown>> } }>;
      return choices.flatMap((choice) => choice.delta.tool_calls ?? []);
    });
    expect(calls).toEqual([
      { index: 0, id: 'call_a', type: 'function', function: { name: 'echo', arguments: '{"text":"alpha"}' } },
      { index: 1, id: 'call_b', type: 'function', function: { name: 'echo', arguments: '{"text":"beta"}' } },
    ]);
    const agentEvents = chunks.flatMap((chunk) =>
      chunk.agent_event ? [(chunk.agent_event as { event: string }).event] : [],
    );
    for (const type of ['tool.approval_required', 'tool.approval_resolved', 'message.received', 'run.awaiting_input'])
      expect(agentEvents).toContain(type);
  });

  it('names the new events in format=combined, as in format=events', () => {
    const { log, context } = logOf(hitlEpisode);
    const text = log.entries.map((entry) => combinedFormat.frame(entry, context)).join('');
    const names = parseSseText(text).map((message) => message.event);
    expect(names.filter((name) => name !== undefined && name !== 'message')).toEqual(
      log
        .events()
        .filter((event) => event.event !== 'message.delta')
        .map((event) => event.event),
    );
  });
});
