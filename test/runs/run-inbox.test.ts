import { describe, expect, it, vi } from 'vitest';
import { MAX_WAITING_MESSAGES, RunInbox } from '../../src/runs/run-inbox.js';
import { settledValue } from '../support/settled-value.js';

const decision = (approvalId: string, choice: 'approve' | 'deny', decisionId = `d-${choice}`) => ({
  approvalId,
  decision: choice,
  decisionId,
});

describe('RunInbox', () => {
  it('keeps the first decision of an open approval only, and drops decisions for approvals not open', () => {
    const inbox = new RunInbox();
    inbox.decide(decision('early', 'approve'));
    inbox.open(['a', 'b']);
    inbox.decide(decision('b', 'deny', 'first'));
    inbox.decide(decision('b', 'approve', 'second'));
    inbox.decide(decision('a', 'approve'));
    expect(inbox.takeDecisions().map((taken) => [taken.approvalId, taken.decisionId])).toEqual([
      ['b', 'first'],
      ['a', 'd-approve'],
    ]);
    // Taken decisions close their approvals: a late one is dropped.
    inbox.decide(decision('a', 'deny'));
    expect(inbox.takeDecisions()).toEqual([]);
    inbox.open(['c']);
    inbox.close('c');
    inbox.decide(decision('c', 'approve'));
    expect(inbox.takeDecisions()).toEqual([]);
  });

  it(`holds at most ${MAX_WAITING_MESSAGES} messages until they are taken, oldest first`, () => {
    const inbox = new RunInbox();
    for (let index = 0; index < MAX_WAITING_MESSAGES; index++)
      expect(inbox.post({ messageId: `m${index}`, content: 'hi' })).toBe(true);
    expect(inbox.full).toBe(true);
    expect(inbox.post({ messageId: 'late', content: 'hi' })).toBe(false);
    expect(inbox.takeMessages().map((message) => message.messageId)).toEqual(
      Array.from({ length: MAX_WAITING_MESSAGES }, (_, index) => `m${index}`),
    );
    expect(inbox.hasMessages).toBe(false);
    expect(inbox.post({ messageId: 'now', content: 'hi' })).toBe(true);
  });

  it('wakes a wait when a message or a decision arrives, at the deadline, and rejects it on abort', async () => {
    const inbox = new RunInbox();
    const heard: boolean[] = [];
    inbox.onWait((waiting) => heard.push(waiting));
    const signal = new AbortController().signal;
    const far = Date.now() + 60_000;

    const byMessage = inbox.wait(far, signal, Date.now);
    expect(inbox.waiting).toBe(true);
    inbox.post({ messageId: 'm', content: 'hi' });
    await byMessage;
    expect(inbox.waiting).toBe(false);

    inbox.open(['a']);
    const byDecision = inbox.wait(far, signal, Date.now);
    inbox.decide(decision('a', 'approve'));
    await byDecision;

    // The deadline on a fake clock: the wait ends at it, not a millisecond before.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const byDeadline = settledValue(inbox.wait(Date.now() + 30, signal, Date.now));
      await vi.advanceTimersByTimeAsync(29);
      expect(byDeadline.settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(byDeadline.settled).toBe(true);
    } finally {
      vi.useRealTimers();
    }

    const controller = new AbortController();
    const aborted = inbox.wait(far, controller.signal, Date.now);
    controller.abort(new Error('cancelled'));
    await expect(aborted).rejects.toThrow('cancelled');
    expect(heard).toEqual([true, false, true, false, true, false, true, false]);
  });

  it('lets a listener that cancels the run as the wait begins end the wait at once', async () => {
    const inbox = new RunInbox();
    const controller = new AbortController();
    inbox.onWait((waiting) => {
      if (waiting) controller.abort(new Error('shutting down'));
    });
    await expect(inbox.wait(Date.now() + 60_000, controller.signal, Date.now)).rejects.toThrow('shutting down');
    expect(inbox.waiting).toBe(false);
  });
});
