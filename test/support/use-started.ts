import { afterAll, beforeAll } from 'vitest';

/**
 * Starts what `start` makes before the tests of the enclosing `describe` (or file) and `stop`s it
 * after them. What it returns stands for what was started: each property read goes to it, so tests use
 * it as they would the thing itself, once the `beforeAll` ran (`what` names it in the error of a read
 * before that). `startTimeoutMs`, where starting it may take longer than a hook's default.
 */
export function useStarted<T extends object>(
  what: string,
  start: () => Promise<T>,
  stop: (started: T) => Promise<unknown>,
  startTimeoutMs?: number,
): T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    if (started) await stop(started);
  });
  return new Proxy({} as T, {
    get(_target, key) {
      if (!started) throw new Error(`${what} is read (${String(key)}) before its beforeAll started it`);
      return Reflect.get(started, key);
    },
  });
}
