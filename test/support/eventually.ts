/** How long and how often {@link eventually} looks. */
export interface EventuallyOptions {
  /** Give up after this long; default 20 s, below the test timeout, so the failure names what never came. */
  timeoutMs?: number;
  /** The pause between two looks; default 10 ms. */
  intervalMs?: number;
}

/**
 * Calls `probe` until it returns something other than `undefined` or `false`, and returns that. A
 * probe that throws is asked again, as what it looks at may not answer yet (an instance restarting,
 * a run not created); after `timeoutMs` the error names `what` never came, with the probe's last
 * error. The one way tests wait for a condition: never a sleep sized to an interval of the code.
 */
export async function eventually<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  { timeoutMs = 20_000, intervalMs = 10 }: EventuallyOptions = {},
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (performance.now() > deadline) {
      const cause = lastError === undefined ? '' : `; the last look failed: ${String(lastError)}`;
      throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}${cause}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
