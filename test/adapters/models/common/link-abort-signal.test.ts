import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { linkAbortSignal } from '../../../../adapters/models/common/link-abort-signal.js';

describe('linkAbortSignal', () => {
  it("aborts with the parent's reason while linked", () => {
    const parent = new AbortController();
    const link = linkAbortSignal(parent.signal);
    const reason = new Error('stop');
    parent.abort(reason);
    expect(link.signal.aborted).toBe(true);
    expect(link.signal.reason).toBe(reason);
  });

  it('stops following and leaves no listener on the parent once released', () => {
    const parent = new AbortController();
    const link = linkAbortSignal(parent.signal);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    link.release();
    link.release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    parent.abort();
    expect(link.signal.aborted).toBe(false);
  });

  it('starts aborted when the parent already is', () => {
    const reason = new Error('early');
    const link = linkAbortSignal(AbortSignal.abort(reason));
    expect(link.signal.reason).toBe(reason);
  });
});
