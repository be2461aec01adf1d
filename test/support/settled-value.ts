/** What {@link settledValue} has seen of a promise so far. */
export interface SettledValue<T> {
  /** True once the promise fulfilled. */
  settled: boolean;
  /** What it fulfilled with (`undefined` until then). */
  value: T | undefined;
}

/**
 * Follows `promise` so a test on fake timers can check, after advancing the clock, whether it has
 * fulfilled yet and with what — instead of racing it against a real timer.
 */
export function settledValue<T>(promise: Promise<T>): SettledValue<T> {
  const seen: SettledValue<T> = { settled: false, value: undefined };
  void promise.then((value) => {
    seen.settled = true;
    seen.value = value;
  });
  return seen;
}
