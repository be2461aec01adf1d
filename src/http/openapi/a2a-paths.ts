import { z } from 'zod';
import { RpcRequestSchema } from '../../a2a/json-rpc.js';
import { A2A_ROUTES } from '../routes/a2a-routes.js';
import { errors, unauthorized } from './openapi-parts.js';

const endpoint = A2A_ROUTES['POST /v1/a2a'];
const card = A2A_ROUTES['GET /.well-known/agent-card.json'];
const anyJson = { 'application/json': { schema: { type: 'object' } } };

/** The A2A endpoint and agent card (docs/a2a.md) in the OpenAPI document, from their route declarations. */
export function a2aPaths(): Record<string, unknown> {
  return {
    '/v1/a2a': {
      post: {
        summary: endpoint.summary,
        description: endpoint.description,
        parameters: [
          {
            name: 'A2A-Version',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: '`1.0` or `0.3`; absent means 0.3',
          },
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: 'on `SubscribeToTask`: the `id` of the last frame received',
          },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: z.toJSONSchema(RpcRequestSchema, { io: 'input' }) } },
        },
        responses: {
          200: {
            description: endpoint.answers[200].description,
            content: { ...anyJson, 'text/event-stream': { schema: { type: 'string' } } },
          },
          413: {
            description: 'The body is larger than RUNBRIDGE_MAX_BODY_BYTES: a JSON-RPC error, `-32600`.',
            content: anyJson,
          },
          ...errors(unauthorized),
        },
      },
    },
    '/.well-known/agent-card.json': {
      get: {
        summary: card.summary,
        description: card.description,
        security: [],
        responses: { 200: { description: card.answers[200].description, content: anyJson } },
      },
    },
  };
}
