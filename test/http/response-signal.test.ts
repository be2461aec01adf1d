import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { responseSignal } from '../../src/http/response-signal.js';

/** What `responseSignal` uses of a response: its `close` event. */
function response(): ServerResponse & EventEmitter {
  return new EventEmitter() as ServerResponse & EventEmitter;
}

describe('responseSignal', () => {
  it('ends when the response closes, calling each listener once, and its AbortSignal aborts with it', () => {
    const res = response();
    const { signal } = responseSignal(res, new AbortController().signal);
    const aborted = signal.asAbortSignal();
    const calls: string[] = [];
    const first = () => calls.push('first');
    signal.addEventListener('abort', first, { once: true });
    signal.addEventListener('abort', first);
    signal.addEventListener('abort', () => calls.push('second'));
    expect(signal.aborted).toBe(false);
    res.emit('close');
    res.emit('close');
    expect(signal.aborted).toBe(true);
    expect(calls).toEqual(['first', 'second']);
    expect(aborted.aborted).toBe(true);
  });

  it('ends every open response when the server stops, and none released before', () => {
    const shutdown = new AbortController();
    const open = responseSignal(response(), shutdown.signal);
    const released = responseSignal(response(), shutdown.signal);
    released.release();
    shutdown.abort();
    expect(open.signal.aborted).toBe(true);
    expect(released.signal.aborted).toBe(false);
  });

  it('is over at once when the server is already stopping, and never calls a listener added after', () => {
    const shutdown = new AbortController();
    shutdown.abort();
    const { signal } = responseSignal(response(), shutdown.signal);
    let called = false;
    signal.addEventListener('abort', () => {
      called = true;
    });
    expect(signal.aborted).toBe(true);
    expect(signal.asAbortSignal().aborted).toBe(true);
    expect(called).toBe(false);
  });

  it('calls no listener that was removed', () => {
    const res = response();
    const { signal } = responseSignal(res, new AbortController().signal);
    let called = false;
    const listener = () => {
      called = true;
    };
    signal.addEventListener('abort', listener);
    signal.removeEventListener('abort', listener);
    res.emit('close');
    expect(called).toBe(false);
  });
});
