import { useCallback, useEffect, useState } from 'preact/hooks';
import type { EnvironmentList, ModelList, RunbridgeClient } from 'runbridge/client';

/** What a run may name: the bridge's models and environments (`GET /v1/models`, `GET /v1/environments`). */
export type Catalog =
  | { state: 'loading' }
  | { state: 'ready'; models: ModelList['data']; defaultModel: string; environments: EnvironmentList }
  | { state: 'failed'; error: unknown };

/** Loads the catalog with `client`, again whenever the client changes (a new key); `reload` asks again. */
export function useCatalog(client: RunbridgeClient): { catalog: Catalog; reload: () => void } {
  const [catalog, setCatalog] = useState<Catalog>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    setCatalog({ state: 'loading' });
    Promise.all([client.models.list({ signal }), client.environments.list({ signal })]).then(
      ([models, environments]) =>
        setCatalog({ state: 'ready', models: models.data, defaultModel: models.default, environments }),
      (error: unknown) => {
        if (!signal.aborted) setCatalog({ state: 'failed', error });
      },
    );
    return () => controller.abort();
  }, [client, attempt]);
  const reload = useCallback(() => setAttempt((count) => count + 1), []);
  return { catalog, reload };
}
