import type { Model } from '../../models/model.js';
import type { OrsClient } from '../../ors/client/ors-client.js';

/** What one worker thread plays its episodes with: a model and an ORS client of its own. */
export interface RolloutWorkerRuntime {
  model: Model;
  ors: OrsClient;
  /** Values cut out of everything the episodes write (the model's API key, which its vendor may quote). */
  redact?: readonly string[];
  /** Stops what the setup started (a built-in ORS server, …); called once the batch is over. */
  close?(): Promise<void>;
}

/**
 * The export a worker setup module names `setUpRolloutWorker`: builds one worker's model and ORS
 * client from the batch's `data`. A model and a client cannot cross threads, so each worker builds
 * its own; its model must have the batch's model id.
 */
export type RolloutWorkerSetup = (data: unknown) => Promise<RolloutWorkerRuntime>;

/** Where the worker threads of a batch come from (see `GenerateRolloutsOptions.workers`). */
export interface RolloutWorkers {
  /**
   * Worker threads, started before the batch plays; 1 plays the episodes in the calling thread, as
   * without this option. With `asNeeded`, the most threads the batch plays in, the calling thread among them.
   */
  count: number;
  /**
   * Start worker threads only as the batch can use them (`runbridge rollout` without `--workers`): the
   * calling thread plays from the start, and a worker thread is added beside it for each further
   * `episodesPerThread` pending episodes, each taking episodes once it is set up (`rolloutThreads`).
   */
  asNeeded?: boolean;
  /** With `asNeeded`: the pending episodes that make a thread worth starting; default `EPISODES_PER_THREAD` (512). */
  episodesPerThread?: number;
  /**
   * With `asNeeded`: the cores no other process keeps busy as the batch starts (the machine's cores less
   * its load average); a worker thread is added only for a whole one. Default: as many as the threads.
   */
  idleCores?: number;
  /** A module (file URL) whose `setUpRolloutWorker` export is a {@link RolloutWorkerSetup}. */
  setup: URL;
  /** Handed to `setUpRolloutWorker` in each worker; anything `structuredClone` copies. */
  data?: unknown;
}
