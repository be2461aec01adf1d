import { RunbridgeError } from '../../errors.js';

/** The worker thread playing an episode died before the episode ended: the episode's attempt failed. */
export class RolloutWorkerExitedError extends RunbridgeError {
  constructor(cause: string) {
    super(`The worker thread playing this episode died (${cause}); the episode's attempt is lost.`, {
      code: 'rollout_worker_exited',
    });
  }
}
