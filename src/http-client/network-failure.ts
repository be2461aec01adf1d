/** Node's (undici's) fetch wraps the socket error as `cause`; connection errors carry a `code`. */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (typeof value !== 'object' || value === null || depth > 3) return;
    const { code, cause, errors } = value as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') codes.push(code);
    visit(cause, depth + 1);
    // Happy-eyeballs connects raise an AggregateError with one error per address tried.
    if (Array.isArray(errors)) for (const item of errors) visit(item, depth + 1);
  };
  visit(error, 0);
  return codes;
}

/**
 * True when `error` says no connection was made at all (nothing listens on the port), so the server
 * cannot have seen the request and sending it again is safe whatever it does.
 */
export function isConnectionRefused(error: unknown): boolean {
  return errorCodes(error).includes('ECONNREFUSED');
}

/** The code of a failure to connect or exchange (`ECONNREFUSED`, `ETIMEDOUT`, …), when it has one. */
export function failureCode(error: unknown): string | undefined {
  return errorCodes(error)[0];
}

/**
 * A short phrase for a failed fetch or body read, e.g. `failed: ECONNREFUSED (fetch failed)`, or
 * without a code the innermost cause, e.g. `failed: fetch failed: bad port` (fetch refuses some ports).
 */
export function describeFailure(error: unknown): string {
  const codes = errorCodes(error);
  const message = error instanceof Error ? error.message : String(error);
  if (codes.length > 0) return `failed: ${codes[0]} (${message})`;
  let cause: unknown = error instanceof Error ? error.cause : undefined;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return cause instanceof Error && cause.message !== message
    ? `failed: ${message}: ${cause.message}`
    : `failed: ${message}`;
}
