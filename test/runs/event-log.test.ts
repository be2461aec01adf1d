import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { EventLog, EventLogFullError, RunTooLargeError } from '../../src/runs/event-log.js';
import { waitForAppend } from '../../src/runs/log-reader.js';
import { formatSseFrame } from '../../src/sse/format-sse-frame.js';
import { settledValue } from '../support/settled-value.js';

const started = { event: 'run.started', env: 'arith', task: { split: 'train', index: 0 }, model: 'offline' } as const;
const delta = { event: 'message.delta', delta: 'hi', turn: 1 } as const;

describe('the event log', () => {
  it('stores each event with its JSON serialised once', () => {
    const log = new EventLog('run_1');
    log.append(started);
    expect(log.entries[0]!.json).toBe(JSON.stringify(log.entries[0]!.event));
    expect(log.lastSeq).toBe(0);
  });

  it("keeps each entry's format=events frame, the SSE frame of its seq, type and JSON, also for a stored entry", () => {
    const log = new EventLog('run_1');
    log.append(started);
    log.append(delta);
    const copy = new EventLog('run_1');
    for (const { event, json, detail } of log.entries) copy.appendStored({ event, json, detail });
    for (const entry of [...log.entries, ...copy.entries]) {
      expect(entry.frame).toBe(formatSseFrame({ id: entry.event.seq, event: entry.event.event, data: entry.json }));
      expect(entry.json).toBe(JSON.stringify(entry.event));
    }
  });

  it('refuses a stored entry whose type holds a line break rather than frame it into every stream', () => {
    const log = new EventLog('run_1');
    // A store gives back what it holds unvalidated (src/store/redis/run-mirrors.ts): a type that
    // carries a line break would otherwise write frames of its own into every subscriber's stream.
    const event = { event: 'message.delta\ndata: {"injected":true}', seq: 0, run_id: 'run_1', timestamp: 1 };
    const entry = { event: event as unknown as RunEvent, json: JSON.stringify(event), detail: undefined };
    expect(() => log.appendStored(entry)).toThrow(TypeError);
    expect(log.length).toBe(0);
  });

  it('wakes a waiting reader as soon as an event is appended', async () => {
    const log = new EventLog('run_1');
    const waiting = waitForAppend(log, 0, 60_000);
    log.append(started);
    await expect(waiting).resolves.toBe('appended');
  });

  it('wakes a waiting reader once for a burst of appends in one turn of the event loop, with the whole burst in the log', async () => {
    const log = new EventLog('run_1');
    const seenAtWake: number[] = [];
    const waiting = waitForAppend(log, 0, 60_000).then(() => seenAtWake.push(log.length));
    // Appends spread over many microtasks, as a stream of parts arrives within one network read.
    for (let i = 0; i < 3; i++) {
      log.append(i === 0 ? started : delta);
      for (let tick = 0; tick < 20; tick++) await Promise.resolve();
    }
    await waiting;
    expect(seenAtWake).toEqual([3]);
  });

  describe('with a least time between wakes (RUNBRIDGE_STREAM_FLUSH_SECONDS)', () => {
    // The period is measured on the fake clock, so "at the end of the period" is exact, not a bound.
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('wakes readers at once for the first event, then once at the end of the period for the events that follow within it', async () => {
      const log = new EventLog('run_1', { wakeMs: 300 });
      const first = settledValue(waitForAppend(log, 0, 60_000));
      log.append(started);
      await vi.advanceTimersByTimeAsync(0);
      expect(first.value).toBe('appended');
      const seenAtWake: number[] = [];
      const waiting = settledValue(
        waitForAppend(log, 1, 60_000).then((result) => {
          seenAtWake.push(log.length);
          return result;
        }),
      );
      log.append(delta);
      await vi.advanceTimersByTimeAsync(20);
      log.append(delta);
      await vi.advanceTimersByTimeAsync(279);
      expect(waiting.value).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(waiting.value).toBe('appended');
      expect(seenAtWake).toEqual([3]);
    });

    it('wakes readers at once for the first event after a quiet period', async () => {
      const log = new EventLog('run_1', { wakeMs: 50 });
      log.append(started);
      await vi.advanceTimersByTimeAsync(80);
      const waiting = settledValue(waitForAppend(log, 1, 60_000));
      log.append(delta);
      await vi.advanceTimersByTimeAsync(0);
      expect(waiting.value).toBe('appended');
    });

    /** A log in the middle of a long period, a reader parked on it and a delta held for the period's end. */
    const heldDelta = async () => {
      const log = new EventLog('run_1', { wakeMs: 60_000 });
      log.append(started);
      await vi.advanceTimersByTimeAsync(0);
      const waiting = settledValue(waitForAppend(log, 1, 60_000));
      log.append(delta);
      await vi.advanceTimersByTimeAsync(0);
      expect(waiting.value).toBeUndefined();
      return { log, waiting };
    };

    it('wakes readers at once for the terminal event, with the events held before it', async () => {
      const { log, waiting } = await heldDelta();
      log.append({ event: 'run.failed', error: 'the model went away', code: 'model_error' });
      await vi.advanceTimersByTimeAsync(0);
      expect(waiting.value).toBe('appended');
      expect(log.entries.map((entry) => entry.event.event)).toEqual(['run.started', 'message.delta', 'run.failed']);
    });

    it('wakes readers at once when the log is interrupted', async () => {
      const { log, waiting } = await heldDelta();
      log.interrupt();
      await vi.advanceTimersByTimeAsync(0);
      expect(waiting.value).toBe('interrupted');
    });
  });

  it('answers at once when the log already holds more than the reader has', async () => {
    const log = new EventLog('run_1');
    log.append(started);
    await expect(waitForAppend(log, 0, 60_000)).resolves.toBe('appended');
  });

  it('tells a reader when the keep-alive interval passed with nothing new', async () => {
    await expect(waitForAppend(new EventLog('run_1'), 0, 5)).resolves.toBe('timeout');
  });

  it('stops waiting when the reader goes away', async () => {
    const gone = new AbortController();
    const waiting = waitForAppend(new EventLog('run_1'), 0, 60_000, gone.signal);
    gone.abort();
    await expect(waiting).resolves.toBe('aborted');
  });

  it('refuses progress events past its bound but still takes the events that close the run', () => {
    const log = new EventLog('run_1', { maxEvents: 2 });
    log.append(started);
    log.append(delta);
    expect(() => log.append(delta)).toThrow(EventLogFullError);
    // An approval still open is resolved even then, so the log never ends with one left open.
    log.append({
      event: 'tool.approval_resolved',
      approval_id: 'appr_1',
      tool: 'submit',
      tool_call_id: 'c1',
      decision: 'deny',
      by: 'cancel',
      arguments: {},
      edited: false,
      turn: 1,
      call_index: 0,
    });
    log.append({ event: 'run.failed', error: 'too many events', code: 'event_log_full' });
    expect(log.terminal?.event).toBe('run.failed');
  });

  it('folds each event into its summary as it is appended: status, pending approvals, totals, bytes and times', () => {
    let now = 1_000;
    const log = new EventLog('run_1', { now: () => now, rewardReduction: 'sum' });
    expect(log.summary.status).toBe('queued');
    log.append(started);
    expect(log.summary.status).toBe('running');
    log.append({
      event: 'tool.approval_required',
      approval_id: 'appr_1',
      tool: 'submit',
      tool_call_id: 'c1',
      arguments: { answer: 3 },
      turn: 1,
      call_index: 0,
      expires_at: 2,
      on_timeout: 'deny',
    });
    expect(log.summary.status).toBe('requires_action');
    expect(Object.keys(log.summary.pendingApprovals)).toEqual(['appr_1']);
    log.append({
      event: 'tool.approval_resolved',
      approval_id: 'appr_1',
      tool: 'submit',
      tool_call_id: 'c1',
      decision: 'approve',
      by: 'client',
      arguments: { answer: 3 },
      edited: false,
      turn: 1,
      call_index: 0,
    });
    expect(log.summary.status).toBe('running');
    expect(log.summary.pendingCount).toBe(0);
    for (const reward of [0.5, 0.25]) {
      log.append({
        event: 'tool.completed',
        tool: 'submit',
        tool_call_id: `c${reward}`,
        duration: 0.01,
        error: false,
        output: 'ok',
        reward,
        finished: false,
        turn: 1,
        call_index: 0,
      });
    }
    expect(log.summary.reward).toBe(0.75);
    expect(log.finishedAt).toBeUndefined();
    now = 5_000;
    log.append({ event: 'run.cancelled', reason: 'client' });
    expect(log.summary.status).toBe('cancelled');
    expect(log.finishedAt).toBe(5_000);
    expect(log.updatedAt).toBe(5_000);
    expect(log.bytes).toBe(log.entries.reduce((bytes, entry) => bytes + entry.json.length, 0));
  });

  it('refuses progress events that would pass its bytes, still taking the events that close the run', () => {
    const log = new EventLog('run_1', { maxBytes: 400 });
    log.append(started);
    expect(() => log.append({ event: 'message.delta', delta: 'x'.repeat(400), turn: 1 })).toThrow(RunTooLargeError);
    // The refused event took no seq: the next one follows the last that went in.
    log.append({ event: 'message.dropped', message_id: 'msg_1', reason: 'run_ended' });
    log.append({ event: 'run.failed', error: 'too large', code: 'run_too_large' });
    expect(log.entries.map((entry) => entry.event.seq)).toEqual([0, 1, 2]);
    expect(log.summary.status).toBe('failed');
  });

  it('refuses anything after the terminal event', () => {
    const log = new EventLog('run_1');
    log.append(started);
    log.append({ event: 'run.cancelled', reason: 'client' });
    expect(() => log.append(delta)).toThrow(/after the terminal run.cancelled/);
  });
});
