import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument } from '../../src/http/openapi/openapi-document.js';
import { methodOf, named, pathOf, type RouteDeclaration, type RouteKey } from '../../src/http/routes/route.js';
import { routeRefusals } from '../../src/http/routes/route-errors.js';
import { ROUTE_TABLE } from '../../src/http/routes/route-table.js';
import { ERROR_CODES } from '../../src/protocol/error-codes.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

interface Operation {
  summary: string;
  description?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required: boolean; description?: string }>;
  requestBody?: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content?: Record<
        string,
        { schema: { allOf?: Array<{ properties?: { error?: { properties?: { code?: { enum?: string[] } } } } }> } }
      >;
    }
  >;
}

interface Document {
  paths: Record<string, Record<string, Operation>>;
}

const routes = Object.entries(ROUTE_TABLE) as Array<[RouteKey, RouteDeclaration]>;
const openApiPathOf = (key: RouteKey) => pathOf(key).replace(/:(\w+)/g, '{$1}');

/** The codes an error answer of `operation` lists for its body, by status. */
function errorCodesOf(operation: Operation): Record<string, string[]> {
  return Object.fromEntries(
    Object.entries(operation.responses).flatMap(([status, response]) => {
      const codes =
        response.content?.['application/json']?.schema.allOf?.[1]?.properties?.error?.properties?.code?.enum;
      return codes === undefined ? [] : [[status, codes]];
    }),
  );
}

describe('the OpenAPI document the bridge serves, generated from the route table', () => {
  let bridge: TestBridge;
  let document: Document;

  beforeAll(async () => {
    bridge = await startTestBridge();
    document = (await (await fetch(`${bridge.url}/v1/openapi.json`)).json()) as Document;
  });
  afterAll(() => bridge?.shutdown());

  const operationOf = (key: RouteKey) => document.paths[openApiPathOf(key)]?.[methodOf(key).toLowerCase()];

  it.each(routes)('%s: its summary, who may call it, and each path parameter', (key, route) => {
    const operation = operationOf(key)!;
    expect(operation.summary).toBe(route.summary);
    if (route.access === 'public') expect(operation.security).toEqual([]);
    else expect(operation.security).toBeUndefined();
    const pathParameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path');
    expect(pathParameters.map(({ name, required }) => `${name} ${required}`)).toEqual(
      [...pathOf(key).matchAll(/:(\w+)/g)].map(([, name]) => `${name} true`),
    );
  });

  it.each(routes)(
    '%s: each code it refuses with, under the status of the error table, with its meaning',
    (key, route) => {
      const operation = operationOf(key)!;
      const refusals = routeRefusals(key, route);
      const wanted: Record<string, string[]> = {};
      for (const { code, status } of refusals) (wanted[status] ??= []).push(code);
      expect(errorCodesOf(operation)).toEqual(wanted);
      for (const { code, status } of refusals) {
        expect(operation.responses[status]!.description).toContain(`\`${code}\`: ${ERROR_CODES[code].meaning}`);
      }
    },
  );

  it('lists, on the route that answers how a run ended, each code a run ends with under 502, a bug under 500, and a cancel under 409 alone', () => {
    const codes = errorCodesOf(operationOf('POST /v1/chat/completions')!);
    expect(codes['502']).toEqual(expect.arrayContaining(['model_unavailable', 'ors_session_lost', 'invalid_task']));
    expect(codes['500']).toEqual(['internal_error']);
    expect(codes['409']).toEqual(['cancelled']);
    expect(Object.entries(codes).filter(([, listed]) => listed.includes('cancelled'))).toEqual([
      ['409', ['cancelled']],
    ]);
    expect(operationOf('POST /v1/chat/completions')!.description).toContain(
      'Not streaming: a run that failed answers its code with 502 (500 for `internal_error`), a cancelled one 409 `cancelled`',
    );
  });

  it('gives every 429 a Retry-After header', () => {
    for (const [key] of routes) {
      const tooMany = operationOf(key)!.responses['429'];
      if (tooMany) expect(tooMany.headers, key).toHaveProperty('Retry-After');
    }
  });
});

describe('buildOpenApiDocument', () => {
  const Thing = named('Thing', z.object({ name: z.string() }));
  const route = {
    summary: 'Make a thing',
    description: 'Once per name.',
    access: 'key',
    params: z.object({ shelf: z.string().describe('Where it goes.') }),
    query: z.strictObject({ dry: z.enum(['0', '1']).optional().describe('Check only.') }),
    headers: z.object({ 'Idempotency-Key': z.string().optional() }),
    body: { json: named('ThingRequest', z.strictObject({ name: z.string().default('x') })), required: true },
    answers: { 201: { description: 'Made.', json: Thing, headers: { Location: 'Where it is.' } } },
    errors: ['invalid_request', 'run_not_found'],
    mountedUnless: 'THINGS=0',
  } as const satisfies RouteDeclaration;

  it('writes a declared route as its operation, its schemas as components', () => {
    const document = buildOpenApiDocument({ 'POST /shelves/:shelf/things': route }) as {
      paths: Record<string, Record<string, Operation>>;
      components: { schemas: Record<string, { required?: string[] }> };
    };
    const operation = document.paths['/shelves/{shelf}/things']!.post!;
    expect(operation.summary).toBe('Make a thing');
    expect(operation.description).toBe('Once per name.\n\nNot mounted with `THINGS=0`.');
    expect(operation.parameters).toEqual([
      { name: 'shelf', in: 'path', required: true, description: 'Where it goes.', schema: { type: 'string' } },
      {
        name: 'dry',
        in: 'query',
        required: false,
        description: 'Check only.',
        schema: { type: 'string', enum: ['0', '1'] },
      },
      { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string' } },
    ]);
    expect(operation.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingRequest' } } },
    });
    expect(operation.responses['201']).toEqual({
      description: 'Made.',
      headers: { Location: { description: 'Where it is.', schema: { type: 'string' } } },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
    });
    expect(errorCodesOf(operation)).toEqual({
      '400': ['invalid_request'],
      '401': ['unauthorized'],
      '403': ['host_not_allowed'],
      '404': ['run_not_found'],
      '415': ['unsupported_media_type'],
      '500': ['internal_error'],
    });
    // A body is described as a client writes it: a field with a default may be left out.
    expect(document.components.schemas.ThingRequest!.required ?? []).toEqual([]);
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Thing', 'ThingRequest', 'ErrorBody']),
    );
  });

  it('refuses two schemas under one name', () => {
    const other = { ...route, body: { json: named('Thing', z.strictObject({})), required: false } };
    expect(() => buildOpenApiDocument({ 'POST /a': route, 'POST /b': other })).toThrow('Two schemas are named Thing');
  });
});
