import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { AuthenticationError, createClient } from 'runbridge/client';
import { Announcer } from './components/announcer.js';
import { KeyForm } from './components/key-form.js';
import { RunListView } from './components/run-list.js';
import { RunView } from './components/run-view.js';
import { StartRunForm } from './components/start-run-form.js';
import type { ShownStatus } from './components/status-badge.js';
import { useCatalog } from './hooks/use-catalog.js';
import { useNow } from './hooks/use-now.js';
import { navigate, useRoute } from './hooks/use-route.js';
import { useRunList } from './hooks/use-run-list.js';
import { apiKeyStore } from './state/api-key-store.js';

/** Sentences kept in the live region: enough for a screen reader to catch up, few enough to stay small. */
const ANNOUNCEMENTS_KEPT = 6;

/**
 * The chat page (docs/ui.md): a bar with the brand, the run list beside (or, on a phone, folded
 * under) it, and the main view — the form that starts a run, a run as it streams, or the key form
 * when the bridge wants a key it does not have. One client of `runbridge/client` serves them all;
 * it is made again when the key changes.
 */
export function App() {
  const [apiKey, setApiKey] = useState(apiKeyStore.load);
  const [keyWanted, setKeyWanted] = useState(false);
  const client = useMemo(
    () =>
      createClient({
        baseUrl: location.origin,
        ...(apiKey === undefined ? {} : { apiKey }),
        // A broken stream that cannot reconnect at once is given up, so the page can say the connection
        // is lost straight away; it then tries again itself (use-run-stream.ts).
        reconnect: { retries: 0 },
      }),
    [apiKey],
  );
  const route = useRoute();
  const { catalog, reload: reloadCatalog } = useCatalog(client);
  const runList = useRunList(client);
  const [listOpen, setListOpen] = useState(false);
  // The open run's status as its view shows it, so the run list says the same at the same moment.
  const [shown, setShown] = useState<{ runId: string; status: ShownStatus }>();
  const [announcements, setAnnouncements] = useState<Array<{ id: number; text: string }>>([]);
  const announced = useRef(0);
  const main = useRef<HTMLElement>(null);
  // The focus moves to a view's heading when the person goes to it, not when the page first loads.
  const [moved, setMoved] = useState(false);
  const firstRoute = useRef(true);
  const now = useNow(true, 30_000);

  useEffect(() => {
    if (!firstRoute.current) setMoved(true);
    firstRoute.current = false;
    setListOpen(false);
  }, [route.runId]);

  const wantKey = useCallback(() => setKeyWanted(true), []);
  const runId = route.runId;
  const showStatus = useCallback(
    (status: ShownStatus) => setShown(runId === undefined ? undefined : { runId, status }),
    [runId],
  );
  const refused = [catalog.state === 'failed' ? catalog.error : undefined, runList.failure].some(
    (error) => error instanceof AuthenticationError,
  );
  const needsKey = keyWanted || refused;

  const acceptKey = (key: string) => {
    apiKeyStore.save(key);
    setKeyWanted(false);
    setApiKey(key);
  };
  const forgetKey = () => {
    apiKeyStore.clear();
    setApiKey(undefined);
  };
  const announce = useCallback((sentences: string[]) => {
    setAnnouncements((kept) =>
      [...kept, ...sentences.map((text) => ({ id: announced.current++, text }))].slice(-ANNOUNCEMENTS_KEPT),
    );
  }, []);

  return (
    <div class="app">
      <button type="button" class="skip-link" onClick={() => main.current?.focus()}>
        Skip to content
      </button>
      <header class="topbar">
        <a class="brand" href="#/">
          <img src="/ui/favicon.svg" alt="" width={24} height={24} />
          <span>runbridge</span>
        </a>
        <div class="topbar-actions">
          {needsKey ? null : (
            <button
              type="button"
              class="button button-small list-toggle"
              aria-expanded={listOpen}
              aria-controls="run-list"
              onClick={() => setListOpen(!listOpen)}
            >
              Runs
            </button>
          )}
          {apiKey === undefined ? null : (
            <button type="button" class="button button-small button-quiet" onClick={forgetKey}>
              Forget key
            </button>
          )}
          {needsKey ? null : (
            <a class="button button-small button-primary" href="#/">
              New run
            </a>
          )}
        </div>
      </header>
      <div class={needsKey ? 'layout layout-single' : 'layout'}>
        {needsKey ? null : (
          <RunListView
            list={runList}
            current={route.runId}
            currentStatus={shown?.runId === route.runId ? shown?.status : undefined}
            open={listOpen}
            now={now}
          />
        )}
        <main id="main" ref={main} tabIndex={-1}>
          {needsKey ? (
            <KeyForm onKey={acceptKey} rejected={apiKey !== undefined} />
          ) : route.runId === undefined ? (
            <StartRunForm
              client={client}
              catalog={catalog}
              reloadCatalog={reloadCatalog}
              onStarted={(runId) => {
                runList.refresh();
                navigate(runId);
              }}
              onAuthError={wantKey}
              focus={moved}
            />
          ) : (
            <RunView
              key={route.runId}
              client={client}
              runId={route.runId}
              announce={announce}
              onEnd={runList.refresh}
              onAuthError={wantKey}
              onStatus={showStatus}
              focus={moved}
            />
          )}
        </main>
      </div>
      <Announcer messages={announcements} />
    </div>
  );
}
