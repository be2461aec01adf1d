import { z } from 'zod';
import { RpcRequestSchema } from '../../a2a/json-rpc.js';
import { named, type RouteTable } from './route.js';

/** A JSON document described by the A2A specification rather than here. */
const A2aDocument = named('A2aDocument', z.record(z.string(), z.unknown()));

/**
 * The [A2A](a2a.md) face of the runs: one JSON-RPC endpoint for both protocol versions, and the agent
 * card that names it. A task is a run; its answers are JSON-RPC bodies, errors included.
 */
export const A2A_ROUTES = {
  'POST /v1/a2a': {
    summary: 'A2A JSON-RPC endpoint (v1.0 with `A2A-Version: 1.0`, v0.3 without): tasks are runs',
    description:
      'One JSON-RPC request per POST. `SendMessage` starts a run (a data part holding a `POST /v1/runs` body, text parts as its input) ' +
      'or answers one (decisions, or the next message in chat mode); `GetTask`, `ListTasks`, `CancelTask`, `SubscribeToTask` and their ' +
      'v0.3 names read and follow it. Streams are SSE whose frames carry `id:` (the event seq): resume one with `Last-Event-ID` on ' +
      '`SubscribeToTask`. Errors are JSON-RPC errors with the A2A codes, `data` naming the runbridge code; refusals that pass ' +
      '(429, 503) keep their HTTP status and `Retry-After`. See [A2A](a2a.md).',
    access: 'key',
    headers: z.object({
      'A2A-Version': z.string().optional().describe('`1.0` or `0.3`; absent means 0.3 (A2A v1.0 §3.6)'),
      'Last-Event-ID': z.string().optional().describe('on `SubscribeToTask`: the `id` of the last frame received'),
    }),
    body: { json: named('A2aJsonRpcRequest', RpcRequestSchema), required: true },
    answers: {
      200: {
        description:
          'A JSON-RPC answer (a result or an error), or for the streaming methods an SSE stream of JSON-RPC answers.',
        json: A2aDocument,
        media: ['text/event-stream'],
      },
      // Refusals that keep their HTTP status, with a JSON-RPC error body (docs/a2a.md): a client that reads
      // only the status still backs off, and one that reads JSON-RPC still gets the A2A code.
      413: {
        description: 'The body is larger than RUNBRIDGE_MAX_BODY_BYTES: a JSON-RPC error, `-32600`.',
        json: A2aDocument,
      },
      429: {
        description: 'A refusal of the queue or the streams: a JSON-RPC error whose `data` names the runbridge code.',
        json: A2aDocument,
        headers: { 'Retry-After': 'Seconds to wait before trying again.' },
      },
      503: {
        description: 'Draining, or the store does not answer: a JSON-RPC error whose `data` names the runbridge code.',
        json: A2aDocument,
        headers: { 'Retry-After': 'Seconds to wait before trying again.' },
      },
    },
    errors: [],
  },
  'GET /.well-known/agent-card.json': {
    summary: 'The A2A agent card: the endpoint, one skill per environment, how to authenticate',
    description:
      'The v1.0 card to a caller sending `A2A-Version: 1.0`, else the v0.3 card with the v1.0 interfaces beside it. Its URLs ' +
      'follow `RUNBRIDGE_PUBLIC_URL` (behind a proxy), else the request’s own origin.',
    access: 'public',
    answers: { 200: { description: 'The agent card.', json: A2aDocument } },
    errors: [],
  },
} as const satisfies RouteTable;
