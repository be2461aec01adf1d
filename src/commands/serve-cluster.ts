import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import type { Config } from '../config/index.js';
import { nextStopSignal } from './on-stop-signal.js';

/**
 * `runbridge serve --workers N` (N above 1): this process forks N copies of the command that share
 * its port through `node:cluster` and the runs through Redis, and serves nothing itself. It prints
 * the first worker's banner once all listen, replaces a worker that dies, and on SIGINT/SIGTERM
 * asks every worker to drain and waits for them all.
 */

/** What a worker tells the primary (over the cluster's IPC channel). */
type FromServeWorker = { kind: 'listening'; banner: string };
/** What the primary tells a worker. */
type ToServeWorker = { kind: 'drain' };

/** Runs the primary of a cluster of `config.workers` processes; resolves to its exit code. */
export async function runServeCluster(config: Config, out: (text: string) => void): Promise<number> {
  let stopping = false;
  let started = false;
  const listening = new Map<Worker, string>();
  let reportStarted: () => void = () => undefined;
  let failStart: (message: string) => void = () => undefined;
  const allListening = new Promise<void>((resolve, reject) => {
    reportStarted = resolve;
    failStart = (message) => reject(new Error(message));
  });

  const fork = (): Worker => {
    const worker = cluster.fork();
    worker.on('message', (message: FromServeWorker) => {
      if (message.kind !== 'listening') return;
      listening.set(worker, message.banner);
      if (!started && listening.size === config.workers) {
        started = true;
        reportStarted();
      }
    });
    worker.once('exit', (code, signal) => {
      const how = signal ?? `code ${code}`;
      listening.delete(worker);
      if (stopping) return;
      if (!started) {
        // A worker that cannot start (Redis down, a bad setting) would fail the same way again.
        failStart(`a worker exited (${how}) before listening; its error is above`);
        return;
      }
      // Its running runs end with instance_lost once its lease expires (docs/protocol.md §8.2); its port share goes to the others meanwhile.
      out(`runbridge: worker ${worker.process.pid} exited (${how}); starting another\n`);
      fork();
    });
    return worker;
  };

  for (let index = 0; index < config.workers; index++) fork();
  try {
    await allListening;
  } catch (error) {
    stopping = true;
    await stopWorkers();
    throw error;
  }
  const [banner] = listening.values();
  const pids = [...listening.keys()].map((worker) => worker.process.pid).join(', ');
  out(
    `${banner}  workers: ${config.workers} processes sharing the port (node:cluster; pids ${pids}), runs kept together in Redis\n`,
  );

  const signal = await nextStopSignal();
  stopping = true;
  out(
    `${signal}: draining ${listening.size} workers (up to ${config.shutdownGraceMs / 1000}s; send SIGINT or SIGTERM again to exit at once)\n`,
  );
  await stopWorkers();
  out('runbridge stopped\n');
  return 0;
}

/** Asks every worker to drain (a message, not a signal: a terminal's Ctrl-C reaches them already) and waits for them to exit. */
async function stopWorkers(): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
  await Promise.all(
    workers.map(async (worker) => {
      if (worker.isDead()) return;
      const exited = once(worker, 'exit');
      if (worker.isConnected()) worker.send({ kind: 'drain' } satisfies ToServeWorker);
      await exited;
    }),
  );
}

/** In a worker of the cluster: hands the primary this worker's banner, to print once for all. */
export function reportListening(banner: string): void {
  process.send?.({ kind: 'listening', banner } satisfies FromServeWorker);
}

/** In a worker of the cluster: resolves when the primary asks it to drain. */
export function drainRequested(): Promise<'drain'> {
  return new Promise((resolve) => {
    process.on('message', (message: ToServeWorker) => {
      if (message.kind === 'drain') resolve('drain');
    });
  });
}
