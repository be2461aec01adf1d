import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import { createWorkspaceEnvironment } from '../../adapters/environments/workspace/workspace-environment.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import {
  emptyTranscript,
  foldRunEvent,
  hasRunningTool,
  pendingApprovals,
  type RunTranscript,
  type ToolPart,
  toolElapsed,
} from '../../src/ui/state/run-transcript.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { textByTurn } from '../support/text-by-turn.js';

const fold = (events: readonly RunEvent[], from: RunTranscript = emptyTranscript('run_t'), at = 1_000) =>
  events.reduce((transcript, event) => foldRunEvent(transcript, event, at), from);

const envelope = (seq: number) => ({ seq, run_id: 'run_t', timestamp: 1 });
const call = { tool: 'search', tool_call_id: 'call_1', turn: 1, call_index: 0 };

/** The chat page's model of a run: a fold over the run's events (src/ui/state/run-transcript.ts). */
describe("the chat page's run transcript", () => {
  let bridge: TestBridge;
  let log: RunEvent[];

  beforeAll(async () => {
    // Task 2 hides its value in archive/, so the offline model makes a slow deep search too (shortened here).
    bridge = await startTestBridge(
      {},
      { environments: [arithEnvironment, createWorkspaceEnvironment({ slowToolMs: 20 })] },
    );
    log = await bridge.readEvents(await bridge.startRun({ env: 'workspace', task: { split: 'train', index: 2 } }));
  });
  afterAll(() => bridge?.shutdown());

  it("holds every turn's text, reasoning and tool calls of a real run, and its outcome", () => {
    const transcript = fold(log);
    expect(transcript.lastSeq).toBe(log.at(-1)!.seq);
    expect(transcript.started).toEqual({ env: 'workspace', task: { split: 'train', index: 2 }, model: 'offline' });
    const prompt = log.find((event) => event.event === 'prompt.available');
    expect(transcript.prompt).toBe(prompt?.event === 'prompt.available' ? prompt.text : 'a prompt');
    const texts = transcript.turns
      .map((turn) => turn.parts.flatMap((part) => (part.kind === 'text' ? [part.text] : [])).join(''))
      .filter((text) => text !== '');
    expect(texts).toEqual(textByTurn(log));
    const reasoning = log.filter((event) => event.event === 'reasoning.available');
    expect(transcript.turns.flatMap((turn) => (turn.reasoning ? [turn.reasoning] : []))).toEqual(
      reasoning.map((event) => ({ text: event.text, complete: true })),
    );
    const tools = transcript.turns.flatMap((turn) =>
      turn.parts.filter((part): part is ToolPart => part.kind === 'tool'),
    );
    const completed = log.filter((event) => event.event === 'tool.completed');
    expect(tools.map((part) => [part.tool, part.state, part.result?.output, part.result?.reward])).toEqual(
      completed.map((event) => [event.tool, 'done', event.output, event.reward]),
    );
    const last = log.at(-1)!;
    expect(last.event).toBe('run.completed');
    if (last.event === 'run.completed') {
      expect(transcript.outcome).toEqual({
        kind: 'completed',
        reward: last.reward,
        turns: last.turns,
        usage: last.usage,
        stopReason: last.stop_reason,
        finished: last.finished,
      });
    }
  });

  it('gives the same transcript when a stream resumes after any event, or sends some events again', () => {
    const whole = fold(log);
    for (let cut = 0; cut < log.length; cut++) {
      const before = fold(log.slice(0, cut));
      // A reload resumes after the stored cursor; a proxy that replays sends old events again.
      expect(fold(log.slice(cut), before)).toEqual(whole);
      expect(fold(log, before)).toEqual(whole);
    }
  });

  it('shows a call forming from its argument pieces, then running on a clock set by tool.progress, then done', () => {
    let transcript = fold([
      { event: 'run.started', ...envelope(0), env: 'e', task: { split: 's', index: 0 }, model: 'm' },
      { event: 'tool.arguments.delta', ...envelope(1), ...call, delta: '' },
      { event: 'tool.arguments.delta', ...envelope(2), ...call, delta: '{"pattern":' },
      { event: 'tool.arguments.delta', ...envelope(3), ...call, delta: '"x"}' },
    ]);
    let part = transcript.turns[0]!.parts[0] as ToolPart;
    expect(part).toMatchObject({ state: 'forming', argumentsText: '{"pattern":"x"}', arguments: undefined });
    expect(hasRunningTool(transcript)).toBe(false);

    transcript = foldRunEvent(
      transcript,
      { event: 'tool.started', ...envelope(4), ...call, arguments: { pattern: 'x' }, preview: 'x' },
      10_000,
    );
    part = transcript.turns[0]!.parts[0] as ToolPart;
    expect(part).toMatchObject({ state: 'running', arguments: { pattern: 'x' }, clock: { elapsed: 0, at: 10_000 } });
    expect(hasRunningTool(transcript)).toBe(true);
    expect(toolElapsed(part, 11_500)).toBe(1.5);

    transcript = foldRunEvent(transcript, { event: 'tool.progress', ...envelope(5), ...call, elapsed: 5 }, 20_000);
    part = transcript.turns[0]!.parts[0] as ToolPart;
    // The bridge's elapsed wins over the page's clock, which only moves it on between events.
    expect(toolElapsed(part, 20_000)).toBe(5);
    expect(toolElapsed(part, 20_250)).toBe(5.25);

    transcript = foldRunEvent(
      transcript,
      {
        event: 'tool.completed',
        ...envelope(6),
        ...call,
        duration: 6.2,
        error: true,
        error_message: 'disk full',
        output: '',
        reward: null,
        finished: false,
      },
      30_000,
    );
    part = transcript.turns[0]!.parts[0] as ToolPart;
    expect(part.state).toBe('done');
    expect(part.result).toMatchObject({ duration: 6.2, error: true, errorMessage: 'disk full', truncated: false });
    expect(toolElapsed(part, 99_000)).toBe(6.2);
    expect(hasRunningTool(transcript)).toBe(false);
  });

  it('marks a call that never started as not run when the run ends, and keeps the failure', () => {
    const transcript = fold([
      { event: 'tool.arguments.delta', ...envelope(0), ...call, delta: '{}' },
      { event: 'run.failed', ...envelope(1), error: 'The model broke.', code: 'model_error' },
    ]);
    expect((transcript.turns[0]!.parts[0] as ToolPart).state).toBe('not-run');
    expect(transcript.outcome).toEqual({ kind: 'failed', error: 'The model broke.', code: 'model_error' });
  });

  it('says what ended the run before a call could run: a lost instance, a lost store, a cancel', () => {
    const because = (terminal: RunEvent) =>
      (
        fold([{ event: 'tool.arguments.delta', ...envelope(0), ...call, delta: '{}' }, terminal]).turns[0]!
          .parts[0] as ToolPart
      ).notRunBecause;
    expect(because({ event: 'run.failed', ...envelope(1), error: 'Lost.', code: 'instance_lost' })).toBe(
      'the instance running this run was lost',
    );
    expect(because({ event: 'run.failed', ...envelope(1), error: 'Gone.', code: 'store_lost' })).toBe(
      'the store lost this run',
    );
    expect(because({ event: 'run.cancelled', ...envelope(1), reason: 'client' })).toBe('the run was cancelled');
  });

  it('streams reasoning, then takes the whole reasoning block as authoritative', () => {
    const transcript = fold([
      { event: 'reasoning.delta', ...envelope(0), delta: 'Let me ', turn: 1 },
      { event: 'reasoning.delta', ...envelope(1), delta: 'thnk.', turn: 1 },
    ]);
    expect(transcript.turns[0]!.reasoning).toEqual({ text: 'Let me thnk.', complete: false });
    const done = foldRunEvent(
      transcript,
      { event: 'reasoning.available', ...envelope(2), text: 'Let me think.', turn: 1 },
      0,
    );
    expect(done.turns[0]!.reasoning).toEqual({ text: 'Let me think.', complete: true });
  });

  it('moves the cursor past an event of a type it does not know, and changes nothing else', () => {
    const before = fold(log.slice(0, 3));
    // A type a newer bridge may send (the client hands such events through as they are).
    const newer = { event: 'tool.telemetry', seq: before.lastSeq + 1, run_id: 'run_t', timestamp: 1 };
    const after = foldRunEvent(before, newer as unknown as RunEvent, 0);
    expect(after).toEqual({ ...before, lastSeq: before.lastSeq + 1 });
  });

  it('shows a call waiting for a decision until it is resolved, and a denied call as denied, never run', () => {
    const required = (seq: number, id: string, tool_call_id: string, call_index: number) =>
      ({
        event: 'tool.approval_required',
        ...envelope(seq),
        ...call,
        tool_call_id,
        call_index,
        approval_id: id,
        arguments: { q: id },
        expires_at: 600,
        on_timeout: 'deny',
      }) as const;
    const waiting = fold([
      required(0, 'apr_1', 'call_1', 0),
      { ...required(1, 'apr_2', 'call_2', 1), on_timeout: 'approve' },
    ]);
    expect(pendingApprovals(waiting).map((part) => part.approval?.id)).toEqual(['apr_1', 'apr_2']);
    // What each call's timeout will decide, for the question to say.
    expect(pendingApprovals(waiting).map((part) => part.approval?.onTimeout)).toEqual(['deny', 'approve']);
    expect((waiting.turns[0]!.parts[0] as ToolPart).arguments).toEqual({ q: 'apr_1' });

    const resolved = (seq: number, id: string, tool_call_id: string, decision: 'approve' | 'deny') =>
      ({
        event: 'tool.approval_resolved',
        ...envelope(seq),
        ...call,
        tool_call_id,
        approval_id: id,
        decision,
        by: 'client',
        arguments: { q: 'edited' },
        edited: decision === 'approve',
        ...(decision === 'deny' ? { reason: 'not that one' } : {}),
      }) as const;
    const decided = fold([resolved(2, 'apr_1', 'call_1', 'approve'), resolved(3, 'apr_2', 'call_2', 'deny')], waiting);
    expect(pendingApprovals(decided)).toEqual([]);
    const [approved, denied] = decided.turns[0]!.parts as ToolPart[];
    expect(approved).toMatchObject({ state: 'forming', arguments: { q: 'edited' } });
    expect(approved!.approval).toMatchObject({ decision: 'approve', by: 'client', edited: true });
    expect(denied).toMatchObject({ state: 'denied', approval: { decision: 'deny', reason: 'not that one' } });

    // The run's end leaves a denied call denied (not "not run").
    const ended = foldRunEvent(
      decided,
      {
        event: 'run.completed',
        ...envelope(4),
        reward: null,
        turns: 1,
        usage: { input_tokens: 0, output_tokens: 0 },
        stop_reason: 'no_tool_calls',
        finished: false,
      } as unknown as RunEvent,
      0,
    );
    expect((ended.turns[0]!.parts[1] as ToolPart).state).toBe('denied');
  });

  it("puts a person's messages before the turn that read them, and knows while chat mode waits", () => {
    const transcript = fold([
      { event: 'message.delta', ...envelope(0), delta: 'What now?', turn: 1 },
      { event: 'turn.completed', ...envelope(1), turn: 1, usage: { input_tokens: 1, output_tokens: 1 } },
      { event: 'run.awaiting_input', ...envelope(2), turn: 1, expires_at: 900 },
    ] as unknown as RunEvent[]);
    expect(transcript.awaitingInput).toEqual({ expiresAt: 900 });
    const answered = fold(
      [
        { event: 'message.received', ...envelope(3), message_id: 'msg_1', content: 'Add 2.', turn: 2 },
        {
          event: 'message.received',
          ...envelope(4),
          message_id: 'msg_2',
          content: [{ type: 'text', text: 'Then stop.' }],
          turn: 2,
        },
        { event: 'message.delta', ...envelope(5), delta: 'Done.', turn: 2 },
      ] as unknown as RunEvent[],
      transcript,
    );
    expect(answered.awaitingInput).toBeUndefined();
    expect(answered.turns[1]!.messages).toEqual([
      { id: 'msg_1', text: 'Add 2.' },
      { id: 'msg_2', text: 'Then stop.' },
    ]);
    expect(answered.turns[1]!.parts).toEqual([{ kind: 'text', text: 'Done.' }]);
  });
});
