import type { z } from 'zod';
import { fillPath, methodOf, type PathOfKey, type PathParams } from '../http/routes/route.js';
import type { BridgeRouteKey, ROUTE_TABLE } from '../http/routes/route-table.js';
import { describeFailure } from '../http-client/network-failure.js';
import { apiErrorOf, ConnectionError, UnexpectedResponseError } from './client-errors.js';

/**
 * The one way runbridge's own clients talk to a bridge: `runbridge/client`, `runbridge run --server`
 * and `runbridge rollout --server`. A request names its route by its key in the route table
 * (`src/http/routes/route-table.ts`), so its path, parameters, query and answer are the server's own;
 * only the table's types are taken, and `fillPath`, so no server code is loaded.
 */

/** Where and how the client sends its requests; made once by {@link clientTransport}. */
export interface ClientTransport {
  /** The bridge's base URL without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly fetch: typeof fetch;
}

/** What {@link clientTransport} is made from. */
export interface TransportOptions {
  /** The bridge's base URL, e.g. `http://127.0.0.1:8080`; a path prefix is kept and a trailing slash ignored. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; leave it out for a bridge without `RUNBRIDGE_API_KEYS`. */
  apiKey?: string | undefined;
  /** The fetch to use (a test double, a proxy-aware one); default the global `fetch`. */
  fetch?: typeof fetch | undefined;
}

/**
 * The transport to the bridge at `options.baseUrl`. Throws a `TypeError` at once for a base URL that is
 * not http(s) or an empty API key; nothing is sent until a request is.
 */
export function clientTransport(options: TransportOptions): ClientTransport {
  const url = URL.canParse(options.baseUrl) ? new URL(options.baseUrl) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
    throw new TypeError(
      `baseUrl must be an absolute http(s) URL such as http://127.0.0.1:8080, got ${JSON.stringify(options.baseUrl)}.`,
    );
  }
  if (options.apiKey !== undefined && options.apiKey.trim() === '') {
    throw new TypeError("apiKey is empty: pass one of the bridge's RUNBRIDGE_API_KEYS, or leave apiKey out.");
  }
  // The global fetch is called as a plain function: a browser's fetch throws "Illegal invocation"
  // when called as a method of another object.
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  return {
    baseUrl: `${url.origin}${url.pathname}`.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    fetch: fetchImpl,
  };
}

type Route<Key extends BridgeRouteKey> = (typeof ROUTE_TABLE)[Key];

/** The path parameters of route `Key`, each a string; required exactly when its path has any. */
type ParamsOf<Key extends BridgeRouteKey> = [PathParams<PathOfKey<Key>>] extends [never]
  ? { params?: undefined }
  : { params: Record<PathParams<PathOfKey<Key>>, string> };

/** The query keys route `Key` declares, each a string or number (left out when undefined). */
type QueryOf<Key extends BridgeRouteKey> =
  Route<Key> extends { query: z.ZodObject }
    ? { query?: { [Name in keyof z.input<Route<Key>['query']>]?: string | number | undefined } }
    : { query?: undefined };

/** One request: the route it goes to, its path parameters and query, and optionally a JSON body, headers and a signal. */
export type ClientRequest<Key extends BridgeRouteKey> = {
  route: Key;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
} & ParamsOf<Key> &
  QueryOf<Key>;

/** The JSON that route `Key` answers with when it succeeds, as its declaration's schemas give it. */
export type AnswerOf<Key extends BridgeRouteKey> = {
  [Status in keyof Route<Key>['answers']]: Route<Key>['answers'][Status] extends {
    json: { schema: infer Schema extends z.ZodType };
  }
    ? z.output<Schema>
    : never;
}[keyof Route<Key>['answers']];

/** `request`'s route as `METHOD /path?query` below the base URL, its parameters filled in. */
function target<Key extends BridgeRouteKey>(request: ClientRequest<Key>): { method: string; path: string } {
  const path = fillPath(request.route, (request.params ?? {}) as never);
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) query.set(name, String(value));
  }
  const search = query.size === 0 ? '' : `?${query}`;
  return { method: methodOf(request.route), path: `${path}${search}` };
}

/**
 * Sends `request` and resolves to the response when its status is 2xx. A non-2xx answer rejects with
 * the {@link ApiError} subclass of its status, its code, message and details from the bridge's error
 * body; no answer at all with a {@link ConnectionError}; an aborted signal with the signal's reason.
 */
export async function send<Key extends BridgeRouteKey>(
  transport: ClientTransport,
  request: ClientRequest<Key>,
): Promise<Response> {
  const { method, path } = target(request);
  const headers: Record<string, string> = { ...request.headers };
  if (transport.apiKey !== undefined) headers.Authorization = `Bearer ${transport.apiKey}`;
  // Every POST says it is JSON, an empty one too: a bridge without API keys refuses any other (CSRF).
  if (request.body !== undefined || method === 'POST') headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await transport.fetch(`${transport.baseUrl}${path}`, {
      method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    throw new ConnectionError(
      `${method} ${path}: could not reach runbridge at ${transport.baseUrl} (${describeFailure(error)}). ` +
        'Is the bridge running, is the URL right, and (in a browser) does RUNBRIDGE_CORS_ORIGINS allow this page?',
      { cause: error },
    );
  }
  if (!response.ok) throw await apiErrorOf(response, `${method} ${path}`);
  return response;
}

/** Sends `request` and resolves to its JSON answer; an answer that is not JSON is an {@link UnexpectedResponseError}. */
export async function sendForJson<Key extends BridgeRouteKey>(
  transport: ClientTransport,
  request: ClientRequest<Key>,
): Promise<AnswerOf<Key>> {
  const response = await send(transport, request);
  const { method, path } = target(request);
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    throw new ConnectionError(`${method} ${path}: the connection broke off while reading the answer.`, {
      cause: error,
    });
  }
  try {
    return JSON.parse(text) as AnswerOf<Key>;
  } catch (error) {
    throw new UnexpectedResponseError(
      `${method} ${path} answered ${response.status} with a body that is not JSON; ` +
        'check that the base URL points at a runbridge server.',
      { cause: error },
    );
  }
}
