/** A per-call abort signal that follows a longer-lived one until released. */
export interface LinkedAbortSignal {
  /** Aborts when the parent does, with the parent's reason, until released. */
  readonly signal: AbortSignal;
  /** Stops following the parent; safe to call more than once. */
  release(): void;
}

/**
 * A fresh signal that aborts with `parent`'s reason when `parent` aborts, until released. The
 * vendor SDKs add an abort listener to the signal they are given for every request and never remove
 * it; handing them a per-call signal keeps those listeners (and the request state they hold) from
 * piling up on a run's signal over many turns. Aborted already if `parent` is.
 */
export function linkAbortSignal(parent: AbortSignal): LinkedAbortSignal {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const follow = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', follow, { once: true });
  return { signal: controller.signal, release: () => parent.removeEventListener('abort', follow) };
}
