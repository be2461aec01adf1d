import type { ServerResponse } from 'node:http';
import type { StopSignal } from '../sse/stop-signal.js';

/** The reason a response's `AbortSignal` aborts with: one value, so no `DOMException` (and its stack) per request. */
const RESPONSE_OVER = new Error('the client went away or the server is stopping');

/**
 * Says that a response is over: its client went away or the server is stopping (docs/protocol.md
 * §3: a subscriber's stream ends on either). Listeners are called once, when it ends; one added
 * after that is never called, as with an `AbortSignal`. It is not one because making an
 * `AbortController` per request, and listening on the server's shutdown signal per request, cost
 * about 9 µs per stream in a probe — more than a new subscriber's frames (`bench/`, benchmark 1).
 */
export class ResponseSignal implements StopSignal {
  #aborted = false;
  #listeners: Array<() => void> = [];
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  /** Every listener is called once, so `once` changes nothing. */
  addEventListener(_type: 'abort', listener: () => void, _options?: { once?: boolean }): void {
    if (!this.#aborted && !this.#listeners.includes(listener)) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const index = this.#listeners.indexOf(listener);
    if (index >= 0) this.#listeners.splice(index, 1);
  }

  /** The same news as an `AbortSignal`, for an API that takes only that; made when first asked for. */
  asAbortSignal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(RESPONSE_OVER);
    }
    return this.#controller.signal;
  }

  /** Ends it: every listener is called once. */
  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
    this.#controller?.abort(RESPONSE_OVER);
  }
}

/** The open responses of each shutdown signal: one listener per signal ends them all, rather than one per request. */
const openResponses = new WeakMap<AbortSignal, Set<ResponseSignal>>();

function responsesOf(shutdown: AbortSignal): Set<ResponseSignal> {
  let open = openResponses.get(shutdown);
  if (open === undefined) {
    const responses = new Set<ResponseSignal>();
    shutdown.addEventListener(
      'abort',
      () => {
        for (const response of responses) response.abort();
        responses.clear();
      },
      { once: true },
    );
    openResponses.set(shutdown, responses);
    open = responses;
  }
  return open;
}

/**
 * A signal that ends when `res` closes (the client went away) or `shutdown` aborts, and the function
 * that detaches it once the response is done.
 */
export function responseSignal(
  res: ServerResponse,
  shutdown: AbortSignal,
): { signal: ResponseSignal; release: () => void } {
  const signal = new ResponseSignal();
  const abort = () => signal.abort();
  res.once('close', abort);
  if (shutdown.aborted) {
    signal.abort();
    return { signal, release: () => res.off('close', abort) };
  }
  const open = responsesOf(shutdown);
  open.add(signal);
  return {
    signal,
    release: () => {
      res.off('close', abort);
      open.delete(signal);
    },
  };
}
