/**
 * What ends a wait early, as an `AbortSignal` does (one is a `StopSignal`): an event stream's own is
 * lighter than an `AbortController` per request (`src/http/response-signal.ts`).
 */
export interface StopSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
