import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { spawnRunbridge } from '../support/spawn-runbridge.js';

/**
 * The log never holds the server up (docs/operations.md#logs): a `runbridge serve` whose stderr nobody
 * reads — a container log driver that stopped, a pipe left full — keeps answering, keeps at most
 * `RUNBRIDGE_LOG_BUFFER_BYTES` of lines waiting, drops and counts the rest, says how many once stderr is
 * read again, and still writes its last lines when it exits.
 */

/** Generous against a busy machine, yet far below forever, which is what a blocked log made `/health` wait. */
const BOUND_MS = 10_000;
/** A query that makes each `/health` access line about 4 KB, so a few dozen requests fill a pipe. */
const PADDING = `pad=${'x'.repeat(4000)}`;

let child: ReturnType<typeof spawnRunbridge> | undefined;
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
  child = undefined;
});

/** `runbridge serve` on a free port with the log at `debug` and a 64 KiB buffer; resolves to it and its URL. */
async function serve(): Promise<{ serving: ReturnType<typeof spawnRunbridge>; url: string }> {
  const serving = spawnRunbridge(['serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      ORS_URL: '',
      RUNBRIDGE_API_KEYS: '',
      // Probes' access lines are `debug`: each /health is a line.
      RUNBRIDGE_LOG_LEVEL: 'debug',
      RUNBRIDGE_LOG_FORMAT: 'json',
      RUNBRIDGE_LOG_BUFFER_BYTES: String(64 * 1024),
    },
  });
  child = serving;
  let stdout = '';
  serving.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  const url = await eventually(() => /listening on (http:\/\/\S+)/.exec(stdout)?.[1], 'the banner');
  return { serving, url };
}

/** 200 `/health` requests of 4 KB access lines each, nobody reading stderr: the pipe fills, then the buffer. */
async function fillTheLog(url: string): Promise<void> {
  for (let request = 0; request < 200; request++) {
    const health = await fetch(`${url}/health?${PADDING}`, { signal: AbortSignal.timeout(BOUND_MS) });
    expect(health.status).toBe(200);
    await health.arrayBuffer();
  }
}

describe('a bridge whose stderr is not read', () => {
  it('keeps answering, drops and counts the lines it cannot write, says so once read again, and writes its last lines at exit', async () => {
    const { serving, url } = await serve();
    await fillTheLog(url);

    let stderr = '';
    serving.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const dropped = await eventually(() => {
      const line = stderr.split('\n').find((text) => text.includes('"dropped_lines"'));
      return line === undefined
        ? undefined
        : (JSON.parse(line) as { level: string; msg: string; dropped_lines: number });
    }, 'the line that counts the dropped lines');
    expect(dropped.level).toBe('warn');
    expect(dropped.dropped_lines).toBeGreaterThan(0);
    expect(dropped.msg).toContain(`${dropped.dropped_lines} log lines were dropped`);

    serving.kill('SIGTERM');
    const [code] = (await once(serving, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(stderr).toContain('"msg":"shut down"');
  }, 60_000);

  it('still exits on SIGTERM while stderr stays unread', async () => {
    const { serving, url } = await serve();
    await fillTheLog(url);
    serving.kill('SIGTERM');
    const exited = once(serving, 'exit') as Promise<[number | null]>;
    const [code] = await Promise.race([
      exited,
      new Promise<never>((_resolve, reject) =>
        setTimeout(() => reject(new Error('runbridge serve did not exit')), BOUND_MS * 2).unref(),
      ),
    ]);
    expect(code).toBe(0);
  }, 60_000);
});
