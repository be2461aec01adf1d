import Router from 'koa-router';
import type { AppState } from './app-deps.js';
import type { RouteHandler } from './handlers/route-handler.js';
import { methodOf, pathOf, type RouteDeclaration, type RouteKey, type RouteTable } from './routes/route.js';

/** The middleware that names a route's caller (or refuses it) before its handler; none for a public route. */
export type RouteAuth = (key: RouteKey, route: RouteDeclaration) => Router.IMiddleware<AppState> | undefined;

/**
 * One router holding every route of `table`, in its order, each with its auth and its handler. Every
 * declared route needs exactly one handler, and every handler a declared route: a handler left out, or
 * one for a route the table does not have, stops the app from being made. A route mounted only under a
 * setting (`mountedUnless`) is left out when its handler is `undefined`. One router rather than one per
 * group: each router a request passed read its host and path again and scanned its own routes, five for
 * a run's event stream, about 15 µs of its way through the app (`bench/profiling-log.md`).
 */
export function mountRoutes(
  table: RouteTable,
  handlers: Readonly<Record<string, RouteHandler | undefined>>,
  auth: RouteAuth,
): Router.IMiddleware<AppState> {
  const problems = routeHandlerProblems(table, handlers);
  if (problems.length > 0) throw new Error(`The route table and its handlers disagree: ${problems.join('; ')}.`);
  const router = new Router<AppState>();
  for (const [key, route] of Object.entries(table) as Array<[RouteKey, RouteDeclaration]>) {
    const handler = handlers[key];
    if (handler === undefined) continue;
    const guard = auth(key, route);
    const path = pathOf(key);
    const middleware = guard ? [guard, handler] : [handler];
    switch (methodOf(key)) {
      case 'GET':
        router.get(path, ...(middleware as Router.IMiddleware<AppState>[]));
        break;
      case 'POST':
        router.post(path, ...(middleware as Router.IMiddleware<AppState>[]));
        break;
      case 'DELETE':
        router.delete(path, ...(middleware as Router.IMiddleware<AppState>[]));
        break;
    }
  }
  return router.routes();
}

/** What is wrong between `table` and `handlers`: routes without a handler, handlers without a route. */
export function routeHandlerProblems(
  table: RouteTable,
  handlers: Readonly<Record<string, RouteHandler | undefined>>,
): string[] {
  const problems: string[] = [];
  for (const [key, route] of Object.entries(table) as Array<[RouteKey, RouteDeclaration]>) {
    if (!Object.hasOwn(handlers, key)) problems.push(`${key} has no handler`);
    else if (handlers[key] === undefined && route.mountedUnless === undefined) {
      problems.push(`${key} has no handler, and is not a route mounted only under a setting`);
    }
  }
  for (const key of Object.keys(handlers)) {
    if (!Object.hasOwn(table, key)) problems.push(`${key} has a handler but is not in the table`);
  }
  return problems;
}
