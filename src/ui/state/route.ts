/**
 * The page's address: `#/runs/<run id>` shows a run, anything else the form that starts one. The run
 * is in the URL, so a reload, a bookmark or a second tab opens the same run. A fragment, not a path:
 * the bridge serves one page at `/`, and the run id never reaches a server log.
 */
export interface Route {
  runId: string | undefined;
}

const RUN = /^#\/runs\/([A-Za-z0-9_-]{1,128})$/;

/** The route of a location hash. */
export function parseRoute(hash: string): Route {
  return { runId: RUN.exec(hash)?.[1] };
}

/** The hash of the page of run `runId` (the start form without one). */
export function routeHash(runId: string | undefined): string {
  return runId === undefined ? '#/' : `#/runs/${runId}`;
}
