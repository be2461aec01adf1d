import { afterEach, describe, expect, it } from 'vitest';
import type { Model, ModelPart, ModelRequest } from '../../src/models/model.js';
import { EventDetailSchema } from '../../src/protocol/event-detail.js';
import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { ApprovalPolicySchema } from '../../src/protocol/run-request.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { foldEpisode, type LogEntry } from '../../src/runs/episode-fold.js';
import type { EpisodeRecord } from '../../src/runs/episode-record.js';
import { EventLog } from '../../src/runs/event-log.js';
import { RunCancelledError } from '../../src/runs/run-cancelled-error.js';
import { runEpisode } from '../../src/runs/run-episode.js';
import { RunInbox } from '../../src/runs/run-inbox.js';
import { type OrsTestRig, startOrsTestRig } from '../support/ors-test-rig.js';
import { textBlock } from '../support/scripted-ors-environment.js';

/**
 * `runEpisode` with a person in the loop (docs/protocol.md §7), the inbox driven by the test as the
 * control messages drive it in a server: the conversation the model is sent at each turn, and the
 * record — which the replayed log alone must rebuild exactly, decisions and messages included.
 */

const call = (id: string, name: string, args: unknown): ModelPart => ({
  type: 'tool-call',
  call: { id, name, arguments: JSON.stringify(args) },
});
const text = (delta: string): ModelPart => ({ type: 'text-delta', delta });

/** A model that plays `turns` in order and records every request it is sent. */
function modelOf(turns: ModelPart[][], requests: ModelRequest[]): Model {
  return {
    id: 'scripted:hitl',
    async *stream(request) {
      requests.push({ ...request, messages: structuredClone(request.messages) });
      yield* turns[requests.length - 1] ?? [text('done')];
    },
  };
}

/** The log as a store holds it (JSON), read back and validated. */
function replay(log: EventLog): LogEntry[] {
  return log.entries.map((entry) => ({
    event: RunEventSchema.parse(JSON.parse(entry.json)),
    detail: entry.detail && EventDetailSchema.parse(JSON.parse(JSON.stringify(entry.detail))),
  }));
}

describe('runEpisode with a person in the loop', () => {
  let rig: OrsTestRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  /** Plays an episode whose events `onEvent` sees as they are written (and may answer through the inbox). */
  async function play(
    model: Model,
    inbox: RunInbox,
    onEvent: (event: RunEvent) => void,
    options: { inputTimeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<{ record: EpisodeRecord; log: EventLog }> {
    const log = new EventLog('run_hitl');
    const record = await runEpisode({
      ors: rig!.client,
      model,
      env: 'arith',
      task: { split: 'train', index: 0 },
      maxTurns: 5,
      toolOutputEventChars: 100,
      inbox,
      approval: ApprovalPolicySchema.parse({ tools: ['look'] }),
      ...(options.inputTimeoutMs === undefined ? {} : { inputTimeoutMs: options.inputTimeoutMs }),
      signal: options.signal ?? new AbortController().signal,
      emit: (event, detail) => {
        const written = log.append(event, detail);
        // Answered after the write, as a client answers an event it has read.
        queueMicrotask(() => onEvent(written));
        return written;
      },
    });
    return { record, log };
  }

  it('tells the model of a denial, an edit and a message in the order they happened, and the replayed log rebuilds the record', async () => {
    rig = await startOrsTestRig();
    const looked: unknown[] = [];
    rig.server.defineTool('arith', 'look', {
      run: (input) => {
        looked.push(input);
        return { ok: true, output: { blocks: [textBlock(`saw ${JSON.stringify(input)}`)] } };
      },
    });
    const requests: ModelRequest[] = [];
    const model = modelOf(
      [
        [text('Looking twice.'), call('c1', 'look', { at: 'left' }), call('c2', 'look', { at: 'right' })],
        [text('Seen.')],
        [text('Bye.')],
      ],
      requests,
    );
    const inbox = new RunInbox();
    let firstApproval = '';
    const { record, log } = await play(
      model,
      inbox,
      (event) => {
        if (event.event === 'tool.approval_required' && event.tool_call_id === 'c1') firstApproval = event.approval_id;
        if (event.event === 'tool.approval_required' && event.tool_call_id === 'c2') {
          // Both announced: decide the second first, and say something while the calls wait.
          inbox.post({ messageId: 'msg_1', content: 'Mind the right side.' });
          inbox.decide({ approvalId: event.approval_id, decision: 'deny', reason: 'not right', decisionId: 'd2' });
        }
        if (event.event === 'tool.approval_resolved' && event.tool_call_id === 'c2') {
          inbox.decide({
            approvalId: firstApproval,
            decision: 'approve',
            arguments: { at: 'up' },
            decisionId: 'd1',
          });
        }
        if (event.event === 'run.awaiting_input' && event.turn === 2)
          inbox.post({ messageId: 'msg_2', content: 'Thanks.' });
      },
      { inputTimeoutMs: 200 },
    );
    const events = log.events();
    assertEventOrder(events);
    expect(looked).toEqual([{ at: 'up' }]);
    expect(record.end).toEqual({ status: 'completed', stopReason: 'no_tool_calls' });

    // Turn 2 sees: the assistant's calls, the denial and the edited result (model order), then the message.
    const second = requests[1]!.messages.slice(-4);
    expect(second.map((message) => message.role)).toEqual(['assistant', 'tool', 'tool', 'user']);
    const [, left, right, user] = second;
    expect(left).toMatchObject({ role: 'tool', toolCallId: 'c2', isError: true });
    expect(JSON.stringify(left)).toContain('not right');
    expect(right).toMatchObject({ role: 'tool', toolCallId: 'c1', isError: false });
    expect(JSON.stringify(right)).toContain('edited the arguments');
    expect(JSON.stringify(right)).toContain('saw {\\"at\\":\\"up\\"}');
    expect(user).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Mind the right side.' }] });
    // Turn 3 was chat mode answering the second message.
    expect(requests[2]!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'Thanks.' }] });

    expect(record.userMessages).toEqual([
      { messageId: 'msg_1', turn: 2, index: record.messages.findIndex((m) => JSON.stringify(m).includes('Mind the')) },
      { messageId: 'msg_2', turn: 3, index: record.messages.findIndex((m) => JSON.stringify(m).includes('Thanks.')) },
    ]);
    expect(record.steps[0]!.toolCalls.map((entry) => [entry.id, entry.approval?.decision, entry.error])).toEqual([
      ['c1', 'approve', false],
      ['c2', 'deny', true],
    ]);
    expect(foldEpisode(replay(log))).toEqual(record);
  });

  it('denies every call still waiting when the run is cancelled, and writes nothing after its end', async () => {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'look', { run: () => ({ ok: true, output: { blocks: [textBlock('x')] } }) });
    const controller = new AbortController();
    const { record, log } = await play(
      modelOf([[call('c1', 'look', {}), call('c2', 'look', {})]], []),
      new RunInbox(),
      (event) => {
        if (event.event === 'tool.approval_required' && event.tool_call_id === 'c2')
          controller.abort(new RunCancelledError('client'));
      },
      { signal: controller.signal },
    );
    const events = log.events();
    assertEventOrder(events);
    expect(events.slice(-3).map((event) => [event.event, 'by' in event ? event.by : ''])).toEqual([
      ['tool.approval_resolved', 'cancel'],
      ['tool.approval_resolved', 'cancel'],
      ['run.cancelled', ''],
    ]);
    expect(record.end).toEqual({ status: 'cancelled', reason: 'client' });
    expect(foldEpisode(replay(log))).toEqual(record);
    expect(rig.server.openSessions()).toEqual([]);
  });
});
