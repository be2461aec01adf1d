import type { z } from 'zod';
import type { ErrorCode } from '../../protocol/error-codes.js';

/**
 * What a route of the bridge is, as data: the one declaration each route has, from which the app
 * mounts it (`src/http/mount-routes.ts`), the OpenAPI document and docs/api.md describe it, the auth
 * middleware reads who may call it, and `runbridge/client` types its calls. A declaration imports zod
 * and schemas, never Koa, so the client and the CLI can take its types (and the docs script its values)
 * without loading a server. The handlers, which do need Koa, live in `src/http/handlers/`.
 */

/** The methods the routes answer; every GET answers HEAD too, with the GET's headers and no body. */
export type RouteMethod = 'GET' | 'POST' | 'DELETE';

/** A route's key in its table: its method and its path, with `:name` for each path parameter. */
export type RouteKey = `${RouteMethod} /${string}`;

/**
 * Who may call a route. `public`: anyone (it says nothing about anyone's runs). `metrics`: the scraper's
 * `RUNBRIDGE_METRICS_TOKEN`, checked by the route itself. `key`: an API key, when keys are configured.
 */
export type RouteAccess = 'public' | 'metrics' | 'key';

/** A zod schema with the name the OpenAPI document lists it under (`components.schemas`). */
export interface NamedSchema<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly schema: Schema;
}

/** `schema` under `name` in the OpenAPI document. */
export function named<Schema extends z.ZodType>(name: string, schema: Schema): NamedSchema<Schema> {
  return { name, schema };
}

/** A body that is not one JSON document: a stream, a page, a file. */
export type RouteMedia = 'text/event-stream' | 'application/x-ndjson' | 'text/html' | 'text/plain' | 'any';

/** One answer of a route that is not an error body. */
export interface RouteAnswer {
  /** When it is given, in a sentence. */
  readonly description: string;
  /** Its JSON body, when it has one. */
  readonly json?: NamedSchema;
  /** Its other bodies (with `json`: what the `Accept` header picks between). */
  readonly media?: readonly RouteMedia[];
  /** The JSON of each `data:` frame of its event stream, where one schema describes them. */
  readonly frames?: NamedSchema;
  /** Headers it carries, with what each holds. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A route's request body: a JSON document, which a client may leave out unless `required`. */
export interface RouteBody {
  readonly json: NamedSchema;
  readonly required: boolean;
}

/** One route, declared once. */
export interface RouteDeclaration {
  /** What it does, in a line (the OpenAPI summary, the docs' table). */
  readonly summary: string;
  /** What a caller should know beyond the summary, in Markdown. */
  readonly description?: string;
  readonly access: RouteAccess;
  /**
   * The route whose token may stand in for a key here (`?token=`), for clients that cannot send headers
   * (a browser `EventSource`, docs/protocol.md §6.5): a token it issued for the resource this route's
   * path names, and no other.
   */
  readonly streamToken?: RouteKey;
  /** Its path parameters, each a string described for the docs (their names are the path's `:name`s). */
  readonly params?: z.ZodObject;
  /** Its query, strict: an unknown key is a 400. */
  readonly query?: z.ZodObject;
  /** The request headers it reads. */
  readonly headers?: z.ZodObject;
  readonly body?: RouteBody;
  /** Its answers that are not errors, by status. */
  readonly answers: Readonly<Record<number, RouteAnswer>>;
  /** The codes it refuses with, each with the status the error table gives it (src/protocol/error-codes.ts). */
  readonly errors: readonly ErrorCode[];
  /**
   * Set when the route answers how a run ended (a failed run's code with 502, or 500 for `internal_error`;
   * a cancelled one with 409 `cancelled`): when it does so.
   */
  readonly answersRunEnd?: string;
  /** Set when the route is mounted only under a setting: which (it is absent otherwise). */
  readonly mountedUnless?: string;
}

/** Routes by key. */
export type RouteTable = Readonly<Record<RouteKey, RouteDeclaration>>;

/** The method of a route key. */
export function methodOf(key: RouteKey): RouteMethod {
  return key.slice(0, key.indexOf(' ')) as RouteMethod;
}

/** The path of a route key, e.g. `/v1/runs/:id`. */
export function pathOf(key: RouteKey): string {
  return key.slice(key.indexOf(' ') + 1);
}

/** The names of a path's parameters (`/v1/runs/:id/approvals/:approval_id` → id | approval_id). */
export type PathParams<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParams<`/${Rest}`>
  : Path extends `${string}:${infer Name}`
    ? Name
    : never;

/** The path of a key, as a type. */
export type PathOfKey<Key> = Key extends `${RouteMethod} ${infer Path}` ? Path : never;

/**
 * `key`'s path with each `:name` replaced by `params[name]` as one segment (percent-encoded, so an id
 * from elsewhere cannot change the path).
 */
export function fillPath<Key extends RouteKey>(key: Key, params: Record<PathParams<PathOfKey<Key>>, string>): string {
  const values = params as Record<string, string>;
  return pathOf(key).replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name]!));
}
