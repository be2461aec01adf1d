import { describeFailure } from '../http-client/network-failure.js';
import { apiErrorOf, ConnectionError, UnexpectedResponseError } from './client-errors.js';

/** Where and how the client sends its requests; made once by `createClient`. */
export interface ClientTransport {
  /** The bridge's base URL without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly fetch: typeof fetch;
}

/** One request: its method and path (below the base URL), and optionally a JSON body, headers and a signal. */
export interface ClientRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/**
 * Sends `request` and resolves to the response when its status is 2xx. A non-2xx answer rejects with
 * the {@link ApiError} subclass of its status; no answer at all with a {@link ConnectionError}; an
 * aborted signal with the signal's reason.
 */
export async function send(transport: ClientTransport, request: ClientRequest): Promise<Response> {
  const headers: Record<string, string> = { ...request.headers };
  if (transport.apiKey !== undefined) headers.Authorization = `Bearer ${transport.apiKey}`;
  // Every POST says it is JSON, an empty one too: a bridge without API keys refuses any other (CSRF).
  if (request.body !== undefined || request.method === 'POST') headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await transport.fetch(`${transport.baseUrl}${request.path}`, {
      method: request.method,
      headers,
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    throw new ConnectionError(
      `${request.method} ${request.path}: could not reach runbridge at ${transport.baseUrl} (${describeFailure(error)}). ` +
        'Is the bridge running, is the URL right, and (in a browser) does RUNBRIDGE_CORS_ORIGINS allow this page?',
      { cause: error },
    );
  }
  if (!response.ok) throw await apiErrorOf(response, `${request.method} ${request.path}`);
  return response;
}

/** Sends `request` and resolves to its JSON answer; an answer that is not JSON is an {@link UnexpectedResponseError}. */
export async function sendForJson<T>(transport: ClientTransport, request: ClientRequest): Promise<T> {
  const response = await send(transport, request);
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    if (request.signal?.aborted) throw request.signal.reason;
    throw new ConnectionError(`${request.method} ${request.path}: the connection broke off while reading the answer.`, {
      cause: error,
    });
  }
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    throw new UnexpectedResponseError(
      `${request.method} ${request.path} answered ${response.status} with a body that is not JSON; ` +
        'check that the base URL points at a runbridge server.',
      { cause: error },
    );
  }
}

/** `id` as one path segment: a run id never needs escaping, but an id from elsewhere must not change the path. */
export function segment(id: string): string {
  return encodeURIComponent(id);
}
