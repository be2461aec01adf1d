import { pino } from 'pino';

/** Where the log writes when it writes to stderr: pino's destination, and what it could not write. */
export interface StderrDestination {
  /** pino's asynchronous destination (SonicBoom) on file descriptor 2. */
  stream: ReturnType<typeof pino.destination>;
  /** Calls `report(count)` once stderr has taken half of what waited, when `count` lines were dropped meanwhile. */
  onDropped(report: (count: number) => void): void;
  /**
   * Resolves once every waiting line is written, or after `withinMs`, whichever is first; then gives up
   * on what is left, so a reader that stopped cannot keep the process from exiting.
   */
  drain(withinMs: number): Promise<void>;
}

/**
 * stderr as a log destination that never blocks the server: pino's asynchronous destination, at most
 * `maxBytes` of lines waiting in it (past that, a line is dropped and counted), flushed at exit by pino
 * — unless stderr is stuck then, where a synchronous flush would hang the exit for good.
 */
export function stderrDestination(maxBytes: number): StderrDestination {
  // Opening process.stderr puts a pipe on fd 2 in non-blocking mode (libuv): a write to a full pipe
  // then fails with EAGAIN, which the destination tries again later, instead of waiting in a thread.
  void process.stderr;
  let dropped = 0;
  let report: ((count: number) => void) | undefined;
  /** Bytes taken and not yet written. */
  let pending = 0;
  /** Set by an EAGAIN, cleared by the next write that went through. */
  let stuck = false;
  let givenUp = false;
  const stream = pino.destination({
    dest: 2,
    sync: false,
    minLength: 0,
    maxLength: maxBytes,
    retryEAGAIN: () => {
      stuck = true;
      return !givenUp;
    },
  });
  stream.on('drop', (data: string | Buffer) => {
    dropped += Math.max(1, String(data).split('\n').length - 1);
  });
  const write = stream.write.bind(stream);
  stream.write = (data: string) => {
    const before = dropped;
    const belowMark = write(data);
    if (dropped === before) pending += Buffer.byteLength(data);
    return belowMark;
  };
  stream.on('write', (written: number) => {
    stuck = false;
    pending -= written;
    // Said once stderr has taken half of what waited: the line itself then finds room.
    if (dropped === 0 || report === undefined || pending > maxBytes / 2) return;
    const count = dropped;
    dropped = 0;
    report(count);
  });
  // A write given up on (an EAGAIN not retried, below): its lines are lost, and nothing else is to be done.
  stream.on('error', () => undefined);
  const flushSync = stream.flushSync.bind(stream);
  stream.flushSync = () => {
    if (stuck) return;
    givenUp = true;
    try {
      flushSync();
    } catch {
      // stderr filled up while flushing: what is left is lost rather than the exit hung.
    } finally {
      givenUp = false;
    }
  };
  return {
    stream,
    onDropped: (listener) => {
      report = listener;
    },
    async drain(withinMs) {
      if (pending <= 0) return;
      let timer: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        new Promise<true>((resolve) => stream.once('drain', () => resolve(true))),
        new Promise<false>((resolve) => {
          timer = setTimeout(() => resolve(false), withinMs);
        }),
      ]);
      clearTimeout(timer);
      // The retry a stuck stderr has pending would keep the process alive: let it fail instead.
      if (!drained) givenUp = true;
    },
  };
}
