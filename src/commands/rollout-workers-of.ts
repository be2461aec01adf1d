import type { RolloutWorkers } from '../rollouts/workers/rollout-worker-setup.js';
import type { RolloutCommandWorkerData } from './set-up-rollout-worker.js';

/** What decides the worker threads of `runbridge rollout`. */
export interface RolloutWorkersChoice {
  /** `--workers`, when given. */
  flag: number | undefined;
  /** The process's environment: whether `RUNBRIDGE_ROLLOUT_WORKERS` was set. */
  env: Record<string, string | undefined>;
  /** `config.rolloutWorkers`: the setting, or the number of cores without it. */
  configured: number;
  /** Whether the providers or environments the command was given live only in this thread. */
  playsHere: boolean;
  /** The machine's cores less its load average, as the batch starts: what the default count may use. */
  idleCores: number;
  data: RolloutCommandWorkerData;
}

/**
 * The worker threads of a batch: each builds the command's model and ORS client again from the same
 * configuration (`set-up-rollout-worker.ts`). A count asked for (`--workers`, `RUNBRIDGE_ROLLOUT_WORKERS`)
 * is started before the batch plays; the default, one a core, only as the batch and the machine can use
 * them (`rolloutThreads`), so that it never loses to one thread on a batch too small to win back a
 * thread's start, or on cores other processes keep busy. Providers and environments that live only in this thread keep every episode here.
 */
export function rolloutWorkersOf(choice: RolloutWorkersChoice): RolloutWorkers | undefined {
  const count = choice.flag ?? choice.configured;
  if (count <= 1 || choice.playsHere) return undefined;
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  return {
    count,
    asNeeded: choice.flag === undefined && choice.env.RUNBRIDGE_ROLLOUT_WORKERS === undefined,
    idleCores: choice.idleCores,
    setup: new URL(`./set-up-rollout-worker${extension}`, import.meta.url),
    data: choice.data,
  };
}
