import { z } from 'zod';

const utf8 = new TextEncoder();

/**
 * A free-form JSON object with bounded nesting and size: these objects are stored with the run,
 * echoed in snapshots and forwarded, so an abusive one is refused at the door.
 */
export function boundedObject(what: string, maxDepth: number, maxBytes: number) {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    if (exceedsDepth(value, maxDepth))
      ctx.addIssue({ code: 'custom', message: `${what} may nest at most ${maxDepth} levels deep` });
    // TextEncoder, not Node's Buffer: the protocol's types reach browser code (runbridge/client, the chat page).
    else if (utf8.encode(JSON.stringify(value)).byteLength > maxBytes)
      ctx.addIssue({ code: 'custom', message: `${what} may hold at most ${maxBytes} bytes of JSON` });
  });
}

/** True when `value` nests deeper than `limit`; stops descending there, so hostile depth costs nothing. */
function exceedsDepth(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  return Object.values(value).some((item) => exceedsDepth(item, limit - 1));
}
