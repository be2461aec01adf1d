import { type Agent, type IncomingMessage, request } from 'node:http';

/** A finished JSON exchange. */
export interface JsonAnswer {
  status: number;
  body: unknown;
}

/**
 * `POST url` with `body` as JSON over `agent`; resolves with the status and the parsed answer
 * (`undefined` for an empty one). Load clients use `node:http` rather than `fetch` because it is the
 * cheapest client Node has, and the client's CPU is not what a benchmark measures.
 */
export function postJson(agent: Agent, url: string, body: unknown): Promise<JsonAnswer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        readAll(res).then(
          (text) => resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : JSON.parse(text) }),
          reject,
        );
      },
    );
    req.once('error', reject);
    req.end(payload);
  });
}

/** `GET url` over `agent`; resolves with the response as soon as its headers are in. */
export function openStream(agent: Agent, url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { accept: 'text/event-stream' } }, resolve);
    req.once('error', reject);
    req.end();
  });
}

/** Every byte of `res` as one buffer, once it has ended; rejects when it breaks off. */
export async function readAllBytes(res: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function readAll(res: IncomingMessage): Promise<string> {
  return (await readAllBytes(res)).toString('utf8');
}
