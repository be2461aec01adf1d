import { A2A_ROUTES } from './a2a-routes.js';
import { CATALOG_ROUTES } from './catalog-routes.js';
import { CHAT_COMPLETION_ROUTES } from './chat-completions-routes.js';
import { META_ROUTES } from './meta-routes.js';
import { ROLLOUT_ROUTES } from './rollouts-routes.js';
import type { RouteTable } from './route.js';
import { RUN_ROUTES } from './runs-routes.js';

/**
 * Every route of the bridge, each declared once: `createApp` mounts exactly these, the OpenAPI document
 * and docs/api.md list them, the auth middleware reads their access, `runbridge/client` and the CLI type
 * their calls with them. In the order the docs list them.
 */
export const ROUTE_TABLE = {
  ...RUN_ROUTES,
  ...CHAT_COMPLETION_ROUTES,
  ...CATALOG_ROUTES,
  ...META_ROUTES,
  ...ROLLOUT_ROUTES,
  ...A2A_ROUTES,
} as const satisfies RouteTable;

/** A key of {@link ROUTE_TABLE}. */
export type BridgeRouteKey = keyof typeof ROUTE_TABLE;
