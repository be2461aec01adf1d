import { type Agent, request } from 'node:http';

/** Plain requests, their answers read whole: what the hand-written loop and the peers' ORS tools send. */
export interface RawHttp {
  post(url: string, body: unknown, headers?: Record<string, string>): Promise<string>;
  getJson<T>(url: string, headers: Record<string, string>): Promise<T>;
}

/**
 * Requests on `node:http` through `agent`, the body read as one string. A request that finds its
 * reused keep-alive connection closed by the server (ECONNRESET before any answer) is sent again, as
 * Node's docs for `request.reusedSocket` advise: the server dropped the idle connection and never saw
 * the request. A process whose event loop is busy for seconds — an SDK at 256 episodes on a shared
 * core — otherwise reuses connections the server has just timed out, several at once; each failure
 * discards one, and a request on a new connection is never sent again.
 */
export function nodeHttp(agent: Agent): RawHttp {
  const send = (
    url: string,
    method: string,
    body: string | undefined,
    headers: Record<string, string>,
  ): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const req = request(url, { method, agent, headers }, (res) => {
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve(text);
          else reject(new Error(`${method} ${url} answered ${status}: ${text}`));
        });
        res.on('error', reject);
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        if (req.reusedSocket && error.code === 'ECONNRESET') send(url, method, body, headers).then(resolve, reject);
        else reject(error);
      });
      req.end(body);
    });
  return {
    post: (url, body, headers = {}) =>
      body === undefined
        ? send(url, 'POST', undefined, headers)
        : send(url, 'POST', JSON.stringify(body), { ...headers, 'content-type': 'application/json' }),
    getJson: async (url, headers) => JSON.parse(await send(url, 'GET', undefined, headers)),
  };
}

/** Requests on the global `fetch`. */
export const fetchHttp: RawHttp = {
  async post(url, body, headers = {}) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${url} answered ${response.status}: ${text}`);
    return text;
  },
  async getJson<T>(url: string, headers: Record<string, string>) {
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    return (await response.json()) as T;
  },
};
