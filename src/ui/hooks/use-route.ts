import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route, routeHash } from '../state/route.js';

/** The route of the page's current URL, kept current as the hash changes (links, back, forward). */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}

/** Shows run `runId` (the start form without one), as a new history entry. */
export function navigate(runId: string | undefined): void {
  location.hash = routeHash(runId);
}
