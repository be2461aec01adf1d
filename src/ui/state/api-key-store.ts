/** Where the tab keeps the API key: its `sessionStorage`, gone when the tab closes. */
const KEY = 'runbridge.ui.apiKey';

/**
 * The API key the person entered, kept for the tab's session so it is asked for once (docs/ui.md,
 * Keys). Never in `localStorage` (it would outlive the session) and never in a URL (URLs end up in
 * logs and histories). The page's strict Content-Security-Policy keeps other scripts from reading it.
 */
export const apiKeyStore = {
  load(): string | undefined {
    return sessionStorage.getItem(KEY) ?? undefined;
  },
  save(key: string): void {
    sessionStorage.setItem(KEY, key);
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
  },
};
