import { ERROR_CODES } from '../../protocol/error-codes.js';
import { pathOf, type RouteAnswer, type RouteDeclaration, type RouteKey, type RouteMedia } from '../routes/route.js';
import { type RouteRefusal, routeRefusals } from '../routes/route-errors.js';
import { runEndAnswerText } from '../routes/run-end-status.js';
import { json, parametersOf, ref } from './openapi-parts.js';

/** A route's path as OpenAPI writes it: `/v1/runs/:id` → `/v1/runs/{id}`. */
export function openApiPath(key: RouteKey): string {
  return pathOf(key).replace(/:(\w+)/g, '{$1}');
}

/**
 * The OpenAPI operation of one route, from its declaration alone: its prose, who may call it, its
 * parameters and body, its answers, and its error answers by status, each listing the codes the route may
 * answer with it and their meanings as the error table gives them (src/protocol/error-codes.ts).
 */
export function routeOperation(key: RouteKey, route: RouteDeclaration): Record<string, unknown> {
  const parameters = [
    ...(route.params ? parametersOf(route.params, 'path') : []),
    ...(route.query ? parametersOf(route.query, 'query') : []),
    ...(route.headers ? parametersOf(route.headers, 'header') : []),
  ];
  const notes = [
    route.description,
    route.answersRunEnd && runEndAnswerText(route.answersRunEnd),
    route.streamToken && `A stream token from \`${route.streamToken}\` stands in for a key as \`?token=\`.`,
    route.mountedUnless && `Not mounted with \`${route.mountedUnless}\`.`,
  ].filter((note) => note !== undefined);
  const responses: Record<string, unknown> = {};
  for (const [status, answer] of Object.entries(route.answers)) responses[status] = answerResponse(answer);
  for (const [status, refusals] of byStatus(routeRefusals(key, route))) {
    if (Object.hasOwn(responses, status)) throw new Error(`${key} declares ${status} both as an answer and an error.`);
    responses[status] = errorResponse(status, refusals);
  }
  return {
    summary: route.summary,
    ...(notes.length === 0 ? {} : { description: notes.join('\n\n') }),
    ...(route.access === 'public' ? { security: [] } : {}),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(route.body ? { requestBody: { required: route.body.required, content: json(route.body.json.name) } } : {}),
    responses,
  };
}

/** What a body other than JSON is, for OpenAPI: text of its type (`any`: whatever the file is). */
const MEDIA_TYPES: Record<RouteMedia, string> = {
  'text/event-stream': 'text/event-stream',
  'application/x-ndjson': 'application/x-ndjson',
  'text/html': 'text/html',
  'text/plain': 'text/plain',
  any: '*/*',
};

function answerResponse(answer: RouteAnswer): Record<string, unknown> {
  const content = {
    ...(answer.json ? json(answer.json.name) : {}),
    ...Object.fromEntries((answer.media ?? []).map((media) => [MEDIA_TYPES[media], { schema: { type: 'string' } }])),
  };
  const frames = answer.frames && ` Each \`data:\` frame of the stream is a \`${answer.frames.name}\`.`;
  return {
    description: `${answer.description}${frames ?? ''}`,
    ...(answer.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(answer.headers).map(([name, description]) => [
              name,
              { description, schema: { type: 'string' } },
            ]),
          ),
        }
      : {}),
    ...(Object.keys(content).length === 0 ? {} : { content }),
  };
}

/** One error answer: the codes it may carry, each with its meaning, and an error body whose code is one of them. */
function errorResponse(status: string, refusals: readonly RouteRefusal[]): Record<string, unknown> {
  const codes = refusals.map(({ code }) => code);
  return {
    description: refusals.map(({ code }) => `\`${code}\`: ${ERROR_CODES[code].meaning}.`).join('\n'),
    ...(status === '429'
      ? {
          headers: {
            'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' } },
          },
        }
      : {}),
    content: {
      'application/json': {
        schema: {
          allOf: [
            ref('ErrorBody'),
            { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codes } } } } },
          ],
        },
      },
    },
  };
}

/** `refusals` by status, in the order their statuses first come. */
function byStatus(refusals: readonly RouteRefusal[]): Map<string, RouteRefusal[]> {
  const grouped = new Map<string, RouteRefusal[]>();
  for (const refusal of [...refusals].sort((a, b) => a.status - b.status)) {
    const status = String(refusal.status);
    grouped.set(status, [...(grouped.get(status) ?? []), refusal]);
  }
  return grouped;
}
