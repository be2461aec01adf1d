import type { ServerResponse } from 'node:http';

/** What a hostile server sends: `head`, then `piece` again and again up to `bytes` in all, then `tail`. */
export interface Flood {
  head: string;
  piece: string;
  tail?: string;
  /** Bytes of the whole answer the server is ready to send (head and tail included). */
  bytes: number;
  /**
   * Stops sending once `after` bytes are written, until `until` resolves (what the peer does while the
   * answer is open); `reached` is called when it stops.
   */
  hold?: { after: number; until: Promise<void>; reached(): void };
}

/** How a flood went, as the server saw it. */
export interface FloodReport {
  /** Bytes handed to the socket (the peer read at most these, plus what the kernel still held). */
  written: number;
  /** True when the peer closed the connection before the server had sent everything. */
  closedEarly: boolean;
}

/**
 * Writes `flood` as the body of `res` — already given its head — with backpressure: the next piece goes
 * only once the socket took the last, so the server holds one piece, never the whole answer, and
 * `written` says how far the peer let it get. Resolves once everything is sent or the peer is gone.
 */
export async function writeFlood(res: ServerResponse, flood: Flood): Promise<FloodReport> {
  const piece = Buffer.from(flood.piece);
  const tail = flood.tail ?? '';
  let written = 0;
  let closed = res.destroyed;
  res.once('close', () => {
    closed = true;
  });
  const write = async (chunk: Buffer | string): Promise<void> => {
    if (closed || res.destroyed) return;
    written += Buffer.byteLength(chunk);
    if (res.write(chunk) || res.destroyed) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  };
  await write(flood.head);
  let held = flood.hold === undefined;
  while (!closed && !res.destroyed && written + piece.length + Buffer.byteLength(tail) <= flood.bytes) {
    if (!held && written >= flood.hold!.after) {
      held = true;
      flood.hold!.reached();
      await flood.hold!.until;
      continue;
    }
    await write(piece);
  }
  if (closed || res.destroyed) return { written, closedEarly: true };
  res.end(tail);
  written += Buffer.byteLength(tail);
  return { written, closedEarly: false };
}
