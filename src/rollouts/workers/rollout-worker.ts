import { parentPort, workerData } from 'node:worker_threads';
import { RunCancelledError } from '../../runs/run-cancelled-error.js';
import { playRolloutEpisode } from '../play-rollout-episode.js';
import type { RolloutWorkerSetup } from './rollout-worker-setup.js';
import type { FromWorker, ToWorker, WorkerStart } from './worker-messages.js';

/**
 * The entry of a rollout worker thread: builds its model and ORS client with the batch's setup
 * module, then plays each episode the parent sends and posts back its record. It writes nothing:
 * the parent owns the file, the manifest and the progress.
 */

const port = parentPort;
if (port === null) throw new Error('rollout-worker.ts runs only as a worker thread (see RolloutWorkerPool).');
const post = (message: FromWorker) => port.postMessage(message);
const start = workerData as WorkerStart;

let setUp: RolloutWorkerSetup;
let runtime: Awaited<ReturnType<RolloutWorkerSetup>>;
try {
  ({ setUpRolloutWorker: setUp } = (await import(start.setup)) as { setUpRolloutWorker: RolloutWorkerSetup });
  if (typeof setUp !== 'function') throw new Error(`${start.setup} has no setUpRolloutWorker export.`);
  runtime = await setUp(start.data);
} catch (error) {
  post({ kind: 'setup-failed', message: error instanceof Error ? error.message : String(error) });
  port.close();
  process.exit(1);
}

const inFlight = new Map<number, AbortController>();
let played: Array<{ id: number; record: string }> = [];
const sendPlayed = () => {
  post({ kind: 'played', records: played });
  played = [];
};
port.on('message', (message: ToWorker) => {
  switch (message.kind) {
    case 'play': {
      const controller = new AbortController();
      inFlight.set(message.id, controller);
      void playRolloutEpisode(runtime, message.episode, controller.signal).then((record) => {
        inFlight.delete(message.id);
        if (played.length === 0) setImmediate(sendPlayed);
        played.push({ id: message.id, record: JSON.stringify(record) });
      });
      return;
    }
    case 'cancel':
      inFlight.get(message.id)?.abort(new RunCancelledError(message.reason));
      return;
    case 'close':
      void (async () => {
        await runtime.close?.();
        post({ kind: 'closed' });
        port.close();
      })();
      return;
  }
});
post({ kind: 'ready', model: runtime.model.id });
