import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routeTableMarkdown } from '../../scripts/docs/route-table-regions.js';
import { named, type RouteTable } from '../../src/http/routes/route.js';

describe("docs/api.md's route tables", () => {
  const table = {
    'POST /shelves/:id/things': {
      summary: 'Make a thing',
      description: 'Once per name: `a` | `b`.',
      access: 'key',
      query: z.strictObject({ dry: z.string().optional(), token: z.string().optional() }),
      streamToken: 'POST /shelves/:id/token',
      body: { json: named('ThingRequest', z.strictObject({})), required: true },
      answers: {
        201: {
          description: 'Made.',
          json: named('Thing', z.object({ id: z.string(), name: z.string().optional() })),
          headers: { Location: 'Where.' },
        },
        204: { description: 'Nothing.' },
      },
      errors: ['run_not_found', 'queue_full'],
    },
    'GET /page': {
      summary: 'The page',
      access: 'public',
      mountedUnless: 'PAGE=0',
      answers: { 200: { description: 'It.', media: ['text/html'] } },
      errors: [],
    },
  } as const satisfies RouteTable;

  it('render a row per route: its method, path and query, what it does, and its answers and error codes by status', () => {
    expect(routeTableMarkdown(table).split('\n')).toEqual([
      '| method and path | does | answers |',
      '|---|---|---|',
      '| `POST /shelves/:id/things?dry=&token=` | Make a thing. Once per name: `a` \\| `b`. A token of `POST /shelves/:id/token` stands in for the key as `?token=`. | 201 `{id, name?}` + `Location`: Made; 204: Nothing; 401 `unauthorized`; 404 `run_not_found`; 415 `unsupported_media_type`; 429 `queue_full` + `Retry-After` |',
      '| `GET /page` | The page (no auth; not there with `PAGE=0`) | 200 `text/html`: It |',
    ]);
  });

  it('leave out only the codes every route may answer, which the page says once', () => {
    expect(routeTableMarkdown(table)).not.toContain('host_not_allowed');
    expect(routeTableMarkdown(table)).not.toContain('internal_error');
  });
});
