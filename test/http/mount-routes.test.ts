import { describe, expect, it } from 'vitest';
import type { RouteHandler } from '../../src/http/handlers/route-handler.js';
import { mountRoutes, routeHandlerProblems } from '../../src/http/mount-routes.js';
import type { RouteTable } from '../../src/http/routes/route.js';
import { ROUTE_TABLE } from '../../src/http/routes/route-table.js';
import { mountedRoutes } from '../support/mounted-routes.js';

const tableKeys = Object.keys(ROUTE_TABLE);

/** The keys of the routes mounted only under a setting that names `variable`. */
const mountedOnlyWith = (variable: string) =>
  Object.entries(ROUTE_TABLE)
    .filter(([, route]) => 'mountedUnless' in route && route.mountedUnless.startsWith(variable))
    .map(([key]) => key);

describe('the routes createApp mounts', () => {
  it('are exactly the route table, in its order, with every setting on', async () => {
    expect(await mountedRoutes()).toEqual(tableKeys);
  });

  it('leave out the chat page with RUNBRIDGE_UI=0 and /metrics with RUNBRIDGE_METRICS=0, and nothing else', async () => {
    expect(mountedOnlyWith('RUNBRIDGE_UI=')).toEqual(['GET /', 'GET /ui/:file']);
    expect(mountedOnlyWith('RUNBRIDGE_METRICS=')).toEqual(['GET /metrics']);
    expect(await mountedRoutes({ ui: false })).toEqual(
      tableKeys.filter((key) => !mountedOnlyWith('RUNBRIDGE_UI=').includes(key)),
    );
    expect(await mountedRoutes({ metrics: false })).toEqual(tableKeys.filter((key) => key !== 'GET /metrics'));
  });
});

describe('mountRoutes', () => {
  const handler: RouteHandler = () => undefined;
  const table = {
    'GET /a': { summary: 'a', access: 'public', answers: {}, errors: [] },
    'GET /b': { summary: 'b', access: 'key', answers: {}, errors: [], mountedUnless: 'B=0' },
  } as const satisfies RouteTable;

  it('names each route without a handler and each handler without a route, and mounts nothing then', () => {
    expect(routeHandlerProblems(table, { 'GET /b': handler, 'POST /c': handler })).toEqual([
      'GET /a has no handler',
      'POST /c has a handler but is not in the table',
    ]);
    expect(routeHandlerProblems(table, { 'GET /a': undefined, 'GET /b': undefined })).toEqual([
      'GET /a has no handler, and is not a route mounted only under a setting',
    ]);
    expect(() => mountRoutes(table, { 'GET /b': handler }, () => undefined)).toThrow(
      'The route table and its handlers disagree: GET /a has no handler.',
    );
  });
});
