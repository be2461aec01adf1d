import type { ControlMessage, ControlOutcome } from '../../runs/control-message.js';
import type { OpenedRun } from '../../runs/run-store.js';
import type { EndedRun, PublishedRun, RunStreams } from '../../runs/run-streams.js';
import { type RunDirectory, touchRun } from './run-directory.js';
import type { RunQueue } from './run-queue.js';

/**
 * The live side of the embedded store: a run's log is made when the run is submitted and the episode
 * plays into that same log, so publishing it costs nothing beyond the log itself, and a subscriber of a
 * queued run follows it from its first event. Control messages go straight to the run's own inbox.
 * Made by {@link MemoryRunStore}, whose directory and queue it shares.
 */
export class MemoryRunStreams implements RunStreams {
  readonly #directory: RunDirectory;
  readonly #queue: RunQueue;
  readonly #now: () => number;
  /** The runs published here whose terminal event is not written yet, by id. */
  readonly #published = new Map<string, PublishedRun>();

  constructor(directory: RunDirectory, queue: RunQueue, now: () => number) {
    this.#directory = directory;
    this.#queue = queue;
    this.#now = now;
  }

  publish(run: PublishedRun): Promise<boolean> {
    const { record, log } = run;
    return new Promise((resolve) => {
      const done = () => {
        this.#published.delete(record.id);
        this.#queue.ended(record.owner);
        resolve(true);
      };
      if (log.terminal) return done();
      this.#published.set(record.id, run);
      const stop = log.onAppend(() => {
        if (!log.terminal) return;
        stop();
        done();
      });
    });
  }

  async join(id: string): Promise<OpenedRun | undefined> {
    return this.#directory.find(id);
  }

  watch(id: string): () => void {
    const run = this.#directory.find(id);
    if (!run) return () => undefined;
    const release = run.subscribers.add();
    touchRun(run, this.#now());
    return () => {
      release();
      touchRun(run, this.#now());
    };
  }

  subscribers(): number {
    let subscribers = 0;
    for (const run of this.#directory.values()) subscribers += run.subscribers.count;
    return subscribers;
  }

  async send(id: string, message: ControlMessage): Promise<ControlOutcome> {
    return this.#published.get(id)?.control(message) ?? 'gone';
  }

  /** Never calls `listener`: every run of this process is executed by it, or ends with it. */
  onEnded(_listener: (run: EndedRun) => void): () => void {
    return () => undefined;
  }
}
