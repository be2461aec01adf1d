import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { RunbridgeError } from '../../errors.js';
import type { CancelReason } from '../../protocol/run-events.js';
import type { EpisodeRecord } from '../../runs/episode-record.js';
import { RunCancelledError } from '../../runs/run-cancelled-error.js';
import type { EpisodePlayer, RolloutEpisode } from '../play-rollout-episode.js';
import { RolloutWorkerExitedError } from './rollout-worker-exited-error.js';
import type { RolloutWorkers } from './rollout-worker-setup.js';
import type { FromWorker, ToWorker, WorkerStart } from './worker-messages.js';

interface Pending {
  resolve: (record: EpisodeRecord) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
  /** Set once it is set up. */
  ready: boolean;
  /** Set once the parent asked it to close: its exit is then no crash. */
  closing: boolean;
  /** Why it died, when an uncaught error ended it. */
  error: Error | undefined;
}

/**
 * The worker threads of a rollout batch: each builds its own model and ORS client (the setup module)
 * and plays the episodes it is handed, as many at once as it is given. An episode goes to the thread
 * with the fewest in flight. A thread that dies fails only its episodes in flight — each rejects with
 * a {@link RolloutWorkerExitedError}, which the batch retries like any failed episode — and a new
 * thread takes its place; one that fails its setup makes every later episode reject with that error.
 * Beside the calling thread ({@link RolloutWorkerPool.beside}), that thread plays too, alone until a
 * worker thread is set up, and from then on as one of them.
 */
export class RolloutWorkerPool {
  readonly #options: RolloutWorkers;
  readonly #modelId: string;
  readonly #threads = new Set<Thread>();
  /** The calling thread's player and its episodes in flight, when it plays too. */
  readonly #here: { play: EpisodePlayer; inFlight: number } | undefined;
  /** Set when a thread could not set itself up: the batch cannot go on. */
  #broken: Error | undefined;
  #nextId = 0;

  private constructor(options: RolloutWorkers, modelId: string, here?: EpisodePlayer) {
    this.#options = options;
    this.#modelId = modelId;
    this.#here = here === undefined ? undefined : { play: here, inFlight: 0 };
  }

  /**
   * Starts `options.count` threads and resolves once every one is set up; rejects (with every thread
   * stopped) when one is not, or when its model is not `modelId`.
   */
  static async start(options: RolloutWorkers, modelId: string): Promise<RolloutWorkerPool> {
    const pool = new RolloutWorkerPool(options, modelId);
    const started = Array.from({ length: options.count }, () => pool.#spawn());
    const outcomes = await Promise.allSettled(started);
    const failure = outcomes.find((outcome) => outcome.status === 'rejected');
    if (failure !== undefined) {
      await pool.close();
      throw failure.reason;
    }
    return pool;
  }

  /**
   * Starts `options.count` threads beside the calling thread, which plays with `here` meanwhile, and
   * returns at once; each thread takes episodes once it is set up. One that is not, or whose model is
   * not `modelId`, makes the next `play` reject with why (the batch stops; what it wrote stays).
   */
  static beside(options: RolloutWorkers, modelId: string, here: EpisodePlayer): RolloutWorkerPool {
    const pool = new RolloutWorkerPool(options, modelId, here);
    for (let started = 0; started < options.count; started++) {
      pool.#spawn().catch((error: Error) => {
        pool.#broken ??= error;
      });
    }
    return pool;
  }

  /** Plays `episode` in the least busy thread; aborting `signal` cancels it there with the signal's reason. */
  play(episode: RolloutEpisode, signal: AbortSignal): Promise<EpisodeRecord> {
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    const thread = this.#leastBusy();
    if (thread === undefined) return this.#playHere(this.#here!, episode, signal);
    const id = this.#nextId++;
    return new Promise<EpisodeRecord>((resolve, reject) => {
      const onAbort = () => {
        const reason: CancelReason = signal.reason instanceof RunCancelledError ? signal.reason.reason : 'client';
        post(thread.worker, { kind: 'cancel', id, reason });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = () => signal.removeEventListener('abort', onAbort);
      thread.pending.set(id, {
        resolve: (record) => {
          settle();
          resolve(record);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
      });
      post(thread.worker, { kind: 'play', id, episode });
      if (signal.aborted) onAbort();
    });
  }

  /** Asks every thread to close what its setup started, then ends it. Call once nothing is in flight. */
  async close(): Promise<void> {
    await Promise.all(
      [...this.#threads].map(async (thread) => {
        thread.closing = true;
        const exited = new Promise((resolve) => thread.worker.once('exit', resolve));
        const closed = new Promise<void>((resolve) => {
          thread.worker.on('message', (message: FromWorker) => {
            if (message.kind === 'closed') resolve();
          });
          thread.worker.once('exit', () => resolve());
        });
        post(thread.worker, { kind: 'close' });
        await closed;
        await thread.worker.terminate();
        await exited;
      }),
    );
    this.#threads.clear();
  }

  async #playHere(
    here: { play: EpisodePlayer; inFlight: number },
    episode: RolloutEpisode,
    signal: AbortSignal,
  ): Promise<EpisodeRecord> {
    here.inFlight++;
    try {
      return await here.play(episode, signal);
    } finally {
      here.inFlight--;
    }
  }

  /** The worker thread with the fewest episodes in flight, or undefined when the calling thread has fewer. */
  #leastBusy(): Thread | undefined {
    let best: Thread | undefined;
    for (const thread of this.#threads) {
      // Without the calling thread, a replacement not yet set up takes episodes: they wait in its port.
      if (thread.closing || (this.#here !== undefined && !thread.ready)) continue;
      if (best === undefined || thread.pending.size < best.pending.size) best = thread;
    }
    if (this.#here !== undefined && (best === undefined || this.#here.inFlight < best.pending.size)) return undefined;
    // A dead thread is replaced at once, in the same turn, so without the calling thread there is always one.
    return best!;
  }

  /** Starts one thread; resolves once it is set up, rejects when it is not. */
  #spawn(): Promise<void> {
    const entry = workerEntry();
    const start: WorkerStart = { setup: this.#options.setup.href, data: this.#options.data };
    const worker = new Worker(entry.file, { workerData: start, eval: entry.eval });
    const thread: Thread = { worker, pending: new Map(), ready: false, closing: false, error: undefined };
    this.#threads.add(thread);
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        switch (message.kind) {
          case 'ready':
            if (message.model !== this.#modelId) {
              reject(
                new RunbridgeError(
                  `A rollout worker's model is "${message.model}", not the batch's "${this.#modelId}": its setup module must build the same model.`,
                  { code: 'rollout_worker_failed' },
                ),
              );
              return;
            }
            thread.ready = true;
            resolve();
            return;
          case 'setup-failed':
            reject(
              new RunbridgeError(`A rollout worker could not set itself up: ${message.message}`, {
                code: 'rollout_worker_failed',
              }),
            );
            return;
          case 'played':
            for (const { id, record } of message.records) {
              const pending = thread.pending.get(id);
              thread.pending.delete(id);
              pending?.resolve(JSON.parse(record) as EpisodeRecord);
            }
            return;
          case 'closed':
            return;
        }
      });
      worker.on('error', (error) => {
        thread.error = error;
      });
      worker.once('exit', (code) => {
        this.#threads.delete(thread);
        if (thread.closing) return;
        const cause = thread.error?.message ?? `exit code ${code}`;
        if (!thread.ready) {
          const error = new RunbridgeError(`A rollout worker exited while setting itself up (${cause}).`, {
            code: 'rollout_worker_failed',
          });
          this.#broken ??= error;
          reject(error);
        } else {
          // Its episodes in flight are lost; the rest of the batch goes on in a new thread.
          // A replacement that cannot set itself up breaks the pool (the next `play` rejects).
          this.#spawn().catch((error: Error) => {
            this.#broken ??= error;
          });
        }
        for (const pending of thread.pending.values()) pending.reject(new RolloutWorkerExitedError(cause));
        thread.pending.clear();
      });
    });
  }
}

function post(worker: Worker, message: ToWorker): void {
  worker.postMessage(message);
}

/**
 * The worker's entry beside this file: compiled JavaScript in the package; when the sources run
 * through tsx (tests, benchmarks), a few lines that load tsx in the thread first, as the loader a
 * process was started with does not reach its worker threads on Node 20.
 */
function workerEntry(): { file: string | URL; eval: boolean } {
  if (!import.meta.url.endsWith('.ts')) return { file: new URL('./rollout-worker.js', import.meta.url), eval: false };
  // tsx's ESM API by its package's export map (vitest offers no `import.meta.resolve`; the CommonJS build fails in a thread).
  const require = createRequire(import.meta.url);
  const manifest = require('tsx/package.json') as { exports: Record<string, { import: { default: string } }> };
  const tsx = new URL(manifest.exports['./esm/api']!.import.default, pathToFileURL(require.resolve('tsx/package.json')))
    .href;
  const entry = new URL('./rollout-worker.ts', import.meta.url).href;
  return {
    file: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
    eval: true,
  };
}
