import { useCallback, useEffect, useState } from 'preact/hooks';
import type { RunbridgeClient, RunListItem } from 'runbridge/client';
import { isFinishedStatus } from '../../protocol/run-status.js';

/** While a listed run has not ended, the list asks again this often, so its status stays current. */
const POLL_MS = 5000;

/** The caller's runs, newest first, as `GET /v1/runs` pages them. */
export interface RunList {
  runs: RunListItem[];
  /** The `after` of the next page, or null at the end. */
  next: string | null;
  failure: unknown;
  /** Asks for the first page again (after a run started or ended). */
  refresh: () => void;
  /** Adds the next page. */
  loadMore: () => void;
}

/** The runs of this key (`client.runs.list`), refreshed on demand and polled while any of them is active. */
export function useRunList(client: RunbridgeClient): RunList {
  const [runs, setRuns] = useState<RunListItem[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>();
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    client.runs.list({ limit: 20 }, { signal: controller.signal }).then(
      (page) => {
        setRuns(page.data);
        setNext(page.next);
        setFailure(undefined);
      },
      (error: unknown) => {
        if (!controller.signal.aborted) setFailure(error);
      },
    );
    return () => controller.abort();
  }, [client, version]);

  const active = runs.some((run) => !isFinishedStatus(run.status));
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setVersion((count) => count + 1);
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [active]);

  const refresh = useCallback(() => setVersion((count) => count + 1), []);
  const loadMore = useCallback(() => {
    if (next === null) return;
    client.runs.list({ limit: 20, after: next }).then(
      (page) => {
        setRuns((shown) => [...shown, ...page.data.filter((run) => !shown.some((seen) => seen.run_id === run.run_id))]);
        setNext(page.next);
      },
      (error: unknown) => setFailure(error),
    );
  }, [client, next]);
  return { runs, next, failure, refresh, loadMore };
}
