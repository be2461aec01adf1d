import { describe, expect, it } from 'vitest';
import { EventLog, EventLogFullError } from '../../src/runs/event-log.js';

const started = { event: 'run.started', env: 'arith', task: { split: 'train', index: 0 }, model: 'offline' } as const;
const delta = { event: 'message.delta', delta: 'hi', turn: 1 } as const;

describe('the event log', () => {
  it('stores each event with its JSON serialised once', () => {
    const log = new EventLog('run_1');
    log.append(started);
    expect(log.entries[0]!.json).toBe(JSON.stringify(log.entries[0]!.event));
    expect(log.lastSeq).toBe(0);
  });

  it('wakes a waiting reader as soon as an event is appended', async () => {
    const log = new EventLog('run_1');
    const waiting = log.waitForAppend(0, 60_000);
    log.append(started);
    await expect(waiting).resolves.toBe('appended');
  });

  it('wakes a waiting reader once for a burst of appends in one turn of the event loop, with the whole burst in the log', async () => {
    const log = new EventLog('run_1');
    const seenAtWake: number[] = [];
    const waiting = log.waitForAppend(0, 60_000).then(() => seenAtWake.push(log.length));
    // Appends spread over many microtasks, as a stream of parts arrives within one network read.
    for (let i = 0; i < 3; i++) {
      log.append(i === 0 ? started : delta);
      for (let tick = 0; tick < 20; tick++) await Promise.resolve();
    }
    await waiting;
    expect(seenAtWake).toEqual([3]);
  });

  it('answers at once when the log already holds more than the reader has', async () => {
    const log = new EventLog('run_1');
    log.append(started);
    await expect(log.waitForAppend(0, 60_000)).resolves.toBe('appended');
  });

  it('tells a reader when the keep-alive interval passed with nothing new', async () => {
    await expect(new EventLog('run_1').waitForAppend(0, 5)).resolves.toBe('timeout');
  });

  it('stops waiting when the reader goes away', async () => {
    const gone = new AbortController();
    const waiting = new EventLog('run_1').waitForAppend(0, 60_000, gone.signal);
    gone.abort();
    await expect(waiting).resolves.toBe('aborted');
  });

  it('refuses progress events past its bound but still takes the events that close the run', () => {
    const log = new EventLog('run_1', 2);
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

  it('refuses anything after the terminal event', () => {
    const log = new EventLog('run_1');
    log.append(started);
    log.append({ event: 'run.cancelled', reason: 'client' });
    expect(() => log.append(delta)).toThrow(/after the terminal run.cancelled/);
  });
});
