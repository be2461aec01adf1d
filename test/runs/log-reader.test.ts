import { describe, expect, it, vi } from 'vitest';
import { EventLog } from '../../src/runs/event-log.js';
import { LogReader } from '../../src/runs/log-reader.js';
import { settledValue } from '../support/settled-value.js';
import { watchTimers } from '../support/watch-timers.js';

const delta = { event: 'message.delta', delta: 'hi', turn: 1 } as const;

/** A subscriber's waits on the log: one idle timer and one abort listener for all of them. */
describe('a reader of the event log', () => {
  it('wakes for each new burst of events, wait after wait', async () => {
    const log = new EventLog('run_1');
    const reader = new LogReader(log, 60_000);
    try {
      for (let length = 0; length < 3; length++) {
        const waiting = reader.wait(length);
        log.append(delta);
        await expect(waiting).resolves.toBe('appended');
      }
      await expect(reader.wait(2)).resolves.toBe('appended');
    } finally {
      reader.close();
    }
  });

  it('answers timeout once its idle period passed with nothing new, and again only after another one once active', async () => {
    // On a fake clock, so "once its idle period passed" is checked to the millisecond.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] });
    const log = new EventLog('run_1');
    const reader = new LogReader(log, 30);
    try {
      const first = settledValue(reader.wait(0));
      await vi.advanceTimersByTimeAsync(29);
      expect(first.value).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(first.value).toBe('timeout');
      // Until the reader says it wrote something, the idle period is over.
      await expect(reader.wait(0)).resolves.toBe('timeout');
      reader.active();
      const waiting = settledValue(reader.wait(0));
      await vi.advanceTimersByTimeAsync(5);
      log.append(delta);
      await vi.advanceTimersByTimeAsync(0);
      expect(waiting.value).toBe('appended');
      reader.active();
      const idle = settledValue(reader.wait(1));
      await vi.advanceTimersByTimeAsync(29);
      expect(idle.value).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1);
      expect(idle.value).toBe('timeout');
    } finally {
      reader.close();
      vi.useRealTimers();
    }
  });

  it('stops a wait when its signal aborts, and answers aborted from then on', async () => {
    const gone = new AbortController();
    const reader = new LogReader(new EventLog('run_1'), 60_000, gone.signal);
    const waiting = reader.wait(0);
    gone.abort();
    await expect(waiting).resolves.toBe('aborted');
    await expect(reader.wait(0)).resolves.toBe('aborted');
    reader.close();
  });

  it('answers interrupted once the log stopped following its store', async () => {
    const log = new EventLog('run_1');
    const reader = new LogReader(log, 60_000);
    const waiting = reader.wait(0);
    log.interrupt();
    await expect(waiting).resolves.toBe('interrupted');
    await expect(reader.wait(0)).resolves.toBe('interrupted');
    reader.close();
  });

  it('leaves no timer behind once closed', async () => {
    const timers = watchTimers((ms) => ms === 60_000);
    const log = new EventLog('run_1');
    const reader = new LogReader(log, 60_000);
    const waiting = reader.wait(0);
    expect(await timers.pending()).toBe(1);
    log.append(delta);
    await waiting;
    reader.close();
    expect(await timers.pending()).toBe(0);
  });
});
