import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookTarget } from './webhook-target.js';

/** What one attempt got: the receiver's status, or why there was none. */
export type PostOutcome = { status: number } | { status: null; error: string };

/** A receiver's answer body is read for at most this much, then dropped: only its status counts. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * One attempt to deliver `body` to `target` (JSON unless `headers` name another type): a POST that connects to the address the guard checked
 * (never resolving the name again), follows no redirect (a 3xx is an answer like any other non-2xx),
 * and gives up after `timeoutMs` in all, connecting included. Never throws.
 */
export function postWebhook(
  target: WebhookTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<PostOutcome> {
  const { url, address, family } = target;
  const pinned = ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(
      url,
      {
        method: 'POST',
        lookup: pinned,
        // One connection per attempt: a pooled socket could outlive the check of its address.
        agent: false,
        headers: {
          'content-type': 'application/json',
          ...headers,
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'runbridge-webhooks',
        },
      },
      (res: IncomingMessage) => {
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        res.on('close', () => finish({ status: res.statusCode ?? 0 }));
        res.on('error', () => finish({ status: res.statusCode ?? 0 }));
      },
    );
    const timer = setTimeout(() => {
      finish({ status: null, error: `no answer within ${timeoutMs / 1000} s` });
      req.destroy();
    }, timeoutMs);
    req.on('error', (error) => finish({ status: null, error: error.message }));
    req.end(body);
  });
}
