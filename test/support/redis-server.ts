import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unusedPort } from './unused-port.js';

/** A `redis-server` of a test's own, on a free loopback port, with its data in a temporary directory. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** A key prefix no other user of this server has (so tests can share one server). */
  prefix(): string;
  /** Kills the server with SIGKILL and starts it again on the same port and directory (its append-only file replayed). */
  restart(options?: { downMs?: number }): Promise<void>;
  /** Stops the server (SIGKILL) without starting it again. */
  kill(): Promise<void>;
  /** Starts a killed server again. */
  start(): Promise<void>;
  /** Freezes the server (SIGSTOP): its connections stay open, and nothing it is sent is answered until {@link thaw}. */
  freeze(): void;
  /** Lets a frozen server go on (SIGCONT). */
  thaw(): void;
  /** Kills the server and starts it again on the same port with nothing: its data is lost. */
  wipe(): Promise<void>;
  /** Stops the server and deletes its directory. */
  stop(): Promise<void>;
}

let prefixes = 0;

/**
 * Starts `redis-server` (Debian's package; `npm test` installs it when missing) with persistence in
 * an append-only file, fsynced on every write (`fsync: 'always'`, so a restart gives back what was
 * written) or once a second (`'everysec'`, Redis's own default, for benchmarks). Stop it with `stop()`.
 */
export async function startTestRedis(options: { fsync?: 'always' | 'everysec' } = {}): Promise<TestRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'runbridge-redis-'));
  // Free when asked; the server binds it right after.
  const port = await unusedPort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const spawned = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        options.fsync ?? 'always',
        '--protected-mode',
        'no',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = spawned;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      };
      spawned.stdout!.on('data', onData);
      spawned.stderr!.on('data', onData);
      spawned.once('exit', (code) =>
        reject(new Error(`redis-server exited (${code}) before it was ready:\n${output}`)),
      );
      spawned.once('error', reject);
    });
    spawned.stdout!.resume();
    spawned.stderr!.resume();
  };
  const kill = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    running.kill('SIGKILL');
    await once(running, 'exit');
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    prefix: () => `t${process.pid}-${++prefixes}:`,
    async restart({ downMs = 0 } = {}) {
      await kill();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    kill,
    start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    async wipe() {
      await kill();
      await rm(dir, { recursive: true, force: true });
      await mkdir(dir, { recursive: true });
      await start();
    },
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
