import cluster, { type Worker } from 'node:cluster';
import { once } from 'node:events';
import type { Config } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import type { FromServeWorker, ToServeWorker } from './cluster-messages.js';
import { MetricsGatherer } from './metrics-gatherer.js';
import { nextStopSignal } from './on-stop-signal.js';
import { RestartBackoff } from './restart-backoff.js';

/**
 * `runbridge serve --workers N` (N above 1): this process forks N copies of the command that share
 * its port through `node:cluster` and the runs through Redis, and serves nothing itself. It prints
 * the first worker's banner once all listen; logs each worker's start and exit in the bridge's log
 * (docs/operations.md#logs); replaces a worker that dies, waiting longer each time its replacements
 * keep dying young; makes the one metrics page every worker answers `/metrics` with; and on
 * SIGINT/SIGTERM asks every worker to drain and waits for them all.
 */

/** Runs the primary of a cluster of `config.workers` processes; resolves to its exit code. */
export async function runServeCluster(config: Config, out: (text: string) => void, log: Logger): Promise<number> {
  let stopping = false;
  let started = false;
  let banner: string | undefined;
  /** The workers listening now, each with its place (1 to N), which its replacements take over. */
  const listening = new Map<Worker, number>();
  const backoffs = Array.from({ length: config.workers }, () => new RestartBackoff());
  const restarts = new Set<NodeJS.Timeout>();
  const gatherer = new MetricsGatherer(log);
  let reportStarted: () => void = () => undefined;
  let failStart: (message: string) => void = () => undefined;
  const allListening = new Promise<void>((resolve, reject) => {
    reportStarted = resolve;
    failStart = (message) => reject(new Error(message));
  });

  const fork = (place: number, replaces?: number): Worker => {
    const worker = cluster.fork();
    const forkedAt = performance.now();
    const pid = worker.process.pid;
    // `pid` is the primary's own on every line: a worker's is `worker_pid`.
    const fields = { worker: place, worker_pid: pid };
    log.info({ ...fields, ...(replaces === undefined ? {} : { replaces }) }, 'worker started');
    worker.on('message', (message: FromServeWorker) => {
      switch (message.kind) {
        case 'listening':
          listening.set(worker, place);
          banner ??= message.banner;
          gatherer.metrics.workersListening(listening.size);
          log.info(fields, 'worker listening');
          if (!started && listening.size === config.workers) {
            started = true;
            reportStarted();
          }
          return;
        case 'scrape':
          void gatherer.page(listening).then(
            (page) => tell(worker, { kind: 'page', id: message.id, page }),
            (error: unknown) => tell(worker, { kind: 'page', id: message.id, error: String(error) }),
          );
          return;
        case 'metrics':
          gatherer.received(message.id, message.metrics);
      }
    });
    worker.once('exit', (code, signal) => {
      listening.delete(worker);
      gatherer.exited(worker);
      gatherer.metrics.workersListening(listening.size);
      const exit = { ...fields, exit_code: code, signal };
      if (stopping) {
        log.info(exit, 'worker exited');
        return;
      }
      if (!started) {
        // A worker that cannot start (Redis down, a bad setting) would fail the same way again.
        log.error(exit, 'worker exited before listening');
        failStart(`a worker exited (${signal ?? `code ${code}`}) before listening; its error is above`);
        return;
      }
      // Its running runs end with instance_lost once its lease expires (docs/protocol.md §8.2); its port share goes to the others meanwhile.
      const delay = backoffs[place - 1]!.next(performance.now() - forkedAt);
      log.warn({ ...exit, restart_in_ms: delay }, 'worker exited');
      const timer = setTimeout(() => {
        restarts.delete(timer);
        gatherer.metrics.workerRestarted();
        fork(place, pid);
      }, delay);
      restarts.add(timer);
    });
    return worker;
  };

  const stop = async () => {
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    await stopWorkers();
  };

  for (let place = 1; place <= config.workers; place++) fork(place);
  try {
    await allListening;
  } catch (error) {
    await stop();
    throw error;
  }
  const pids = [...listening.keys()].map((worker) => worker.process.pid).join(', ');
  out(
    `${banner}  workers: ${config.workers} processes sharing the port (node:cluster; pids ${pids}), runs kept together in Redis\n`,
  );

  const signal = await nextStopSignal();
  out(
    `${signal}: draining ${listening.size} workers (up to ${config.shutdownGraceMs / 1000}s; send SIGINT or SIGTERM again to exit at once)\n`,
  );
  await stop();
  out('runbridge stopped\n');
  return 0;
}

/** Sends `message` to `worker`, unless it is gone (then it would not read it anyway). */
function tell(worker: Worker, message: ToServeWorker): void {
  if (worker.isConnected()) worker.send(message, undefined, () => undefined);
}

/** Asks every worker to drain (a message, not a signal: a terminal's Ctrl-C reaches them already) and waits for them to exit. */
async function stopWorkers(): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined);
  await Promise.all(
    workers.map(async (worker) => {
      if (worker.isDead()) return;
      const exited = once(worker, 'exit');
      tell(worker, { kind: 'drain' });
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
