import type { MetricsSnapshot, ScrapePage, SharedMetrics } from '../telemetry/metrics-snapshot.js';
import type { FromServeWorker, ToServeWorker } from './cluster-messages.js';

/** How long a worker waits for the primary's page: longer than the primary waits for its slowest worker. */
const PAGE_TIMEOUT_MS = 10_000;

type PageAnswer = Extract<ToServeWorker, { kind: 'page' }>;

/**
 * In a worker of `serve --workers N` (docs/operations.md#metrics): `GET /metrics` asks the primary for
 * the page of every worker's metrics, so that whichever worker a scrape reaches, it reads the same
 * counters; and the primary's `collect` is answered with this worker's own.
 */
export function workerSharedMetrics(): SharedMetrics {
  let own: () => Promise<MetricsSnapshot | undefined> = async () => undefined;
  const waiting = new Map<number, (answer: PageAnswer) => void>();
  let nextId = 0;
  process.on('message', (message: ToServeWorker) => {
    if (message.kind === 'collect') {
      void own()
        .catch(() => undefined)
        .then((metrics) => send({ kind: 'metrics', id: message.id, metrics }));
    } else if (message.kind === 'page') {
      waiting.get(message.id)?.(message);
    }
  });
  return {
    provide(read) {
      own = read;
    },
    page() {
      const id = nextId++;
      return new Promise<ScrapePage>((resolve, reject) => {
        const settle = (answer: PageAnswer) => {
          clearTimeout(timer);
          waiting.delete(id);
          if ('page' in answer) resolve(answer.page);
          else reject(new Error(`The metrics of every worker could not be gathered: ${answer.error}`));
        };
        const timer = setTimeout(
          () => settle({ kind: 'page', id, error: `the primary did not answer within ${PAGE_TIMEOUT_MS / 1000} s` }),
          PAGE_TIMEOUT_MS,
        );
        // A scrape in flight must not hold a draining worker open.
        timer.unref();
        waiting.set(id, settle);
        send({ kind: 'scrape', id }, (error) => settle({ kind: 'page', id, error: error.message }));
      });
    },
  };
}

/** Sends `message` to the primary; `failed` hears why it could not be (the channel closed). */
function send(message: FromServeWorker, failed: (error: Error) => void = () => undefined): void {
  if (process.send === undefined || !process.connected) {
    failed(new Error('the channel to the primary is closed'));
    return;
  }
  process.send(message, undefined, {}, (error: Error | null) => {
    if (error) failed(error);
  });
}
