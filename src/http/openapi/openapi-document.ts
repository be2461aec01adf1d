import type { z } from 'zod';
import { PACKAGE_VERSION } from '../../package-version.js';
import { ErrorBodySchema } from '../../protocol/api-answers.js';
import { methodOf, type NamedSchema, type RouteDeclaration, type RouteKey, type RouteTable } from '../routes/route.js';
import { ROUTE_TABLE } from '../routes/route-table.js';
import { type JsonSchema, namedJsonSchemas, runEventTypes } from './json-schemas.js';
import { openApiPath, routeOperation } from './route-operation.js';

/**
 * `GET /v1/openapi.json`: an OpenAPI 3.1 document of the whole HTTP API, generated from the route table
 * (`src/http/routes/route-table.ts`) and the error table (`src/protocol/error-codes.ts`). Every route,
 * parameter, body, answer and error code comes from a route's one declaration, and every schema from the
 * zod schema the server validates or builds it with, by zod's own `toJSONSchema`; nothing is kept by hand.
 */

/** `run.started` → `RunStartedEvent`. */
function eventComponentName(type: string): string {
  return `${type
    .split('.')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')}Event`;
}

/** The named schemas of `table`: the bodies clients send, and the answers and frames they get. */
function namedSchemasOf(table: RouteTable): { requests: NamedSchema[]; answers: NamedSchema[] } {
  const requests: NamedSchema[] = [];
  const answers: NamedSchema[] = [];
  for (const route of Object.values(table) as RouteDeclaration[]) {
    if (route.body) requests.push(route.body.json);
    for (const answer of Object.values(route.answers)) {
      if (answer.json) answers.push(answer.json);
      if (answer.frames) answers.push(answer.frames);
    }
  }
  return { requests, answers };
}

/** `named` as registry entries, one per name. */
function entriesOf(named: readonly NamedSchema[]): Array<readonly [string, z.ZodType]> {
  return [...new Map(named.map(({ name, schema }) => [name, schema]))];
}

/** Throws when two schemas share a name: they would be one component, and one of them described wrongly. */
function checkNames(named: readonly NamedSchema[]): void {
  const byName = new Map<string, z.ZodType>();
  for (const { name, schema } of named) {
    if ((byName.get(name) ?? schema) !== schema) throw new Error(`Two schemas are named ${name} in the route table.`);
    byName.set(name, schema);
  }
}

function components(table: RouteTable): Record<string, JsonSchema> {
  const { requests, answers } = namedSchemasOf(table);
  checkNames([...requests, ...answers]);
  const uri = (name: string) => `#/components/schemas/${name}`;
  return {
    // Bodies a client sends are described as it writes them: a field with a default is optional there.
    ...namedJsonSchemas(entriesOf(requests), uri, 'input'),
    ...namedJsonSchemas(
      [
        ...entriesOf(answers),
        // Each event under its own name, so `RunEvent` is `oneOf` them rather than one long union.
        ...runEventTypes().map(([type, schema]) => [eventComponentName(type), schema] as const),
        ['ErrorBody', ErrorBodySchema],
      ],
      uri,
    ),
  };
}

/** The paths of `table`, each with an operation per method, in the table's order. */
function paths(table: RouteTable): Record<string, Record<string, unknown>> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [key, route] of Object.entries(table) as Array<[RouteKey, RouteDeclaration]>) {
    const path = openApiPath(key);
    paths[path] = { ...paths[path], [methodOf(key).toLowerCase()]: routeOperation(key, route) };
  }
  return paths;
}

/** The document of `table` (the bridge's own by default). */
export function buildOpenApiDocument(table: RouteTable = ROUTE_TABLE): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'runbridge',
      version: PACKAGE_VERSION,
      description:
        'Drives an LLM through an ORS (Open Reward Standard) environment episode and publishes every step as structured run events.',
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    security: [{ bearerAuth: [] }],
    paths: paths(table),
    components: {
      schemas: components(table),
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'One of RUNBRIDGE_API_KEYS; not needed when none are configured (the server then listens on loopback only).',
        },
      },
    },
  };
}

let built: JsonSchema | undefined;

/** The bridge's document (built once: it depends on nothing but the code). */
export function openApiDocument(): JsonSchema {
  built ??= buildOpenApiDocument();
  return built;
}
