import { z } from 'zod';
import {
  methodOf,
  pathOf,
  type RouteAnswer,
  type RouteDeclaration,
  type RouteKey,
  type RouteTable,
} from '../../src/http/routes/route.js';
import { impliedErrors } from '../../src/http/routes/route-errors.js';
import { ROUTE_TABLE } from '../../src/http/routes/route-table.js';
import { runEndAnswerText } from '../../src/http/routes/run-end-status.js';
import { ERROR_CODE_NAMES, ERROR_CODES, type ErrorCode } from '../../src/protocol/error-codes.js';
import type { DocRegion } from './doc-regions.js';

const isBatchRoute = (key: string) => pathOf(key as RouteKey).startsWith('/v1/rollouts');

/** docs/api.md's route tables, generated from the route table: the runs and the rest, then the rollout batches. */
export const ROUTE_TABLE_REGIONS: readonly DocRegion[] = [
  { file: 'docs/api.md', name: 'routes', render: () => routeTableMarkdown(routesWhere((key) => !isBatchRoute(key))) },
  { file: 'docs/api.md', name: 'routes-rollouts', render: () => routeTableMarkdown(routesWhere(isBatchRoute)) },
];

function routesWhere(keep: (key: string) => boolean): RouteTable {
  return Object.fromEntries(Object.entries(ROUTE_TABLE).filter(([key]) => keep(key))) as RouteTable;
}

/** Codes every route may answer, which docs/api.md says once above its tables rather than in every row. */
const EVERYWHERE: readonly ErrorCode[] = ['host_not_allowed', 'internal_error'];

/** A Markdown table of `table`, a row per route in its order: method, path and query; what it does; its answers. */
export function routeTableMarkdown(table: RouteTable): string {
  const rows = (Object.entries(table) as Array<[RouteKey, RouteDeclaration]>).map(
    ([key, route]) => `| \`${methodAndPath(key, route)}\` | ${cell(does(route))} | ${cell(answers(key, route))} |`,
  );
  return ['| method and path | does | answers |', '|---|---|---|', ...rows].join('\n');
}

function methodAndPath(key: RouteKey, route: RouteDeclaration): string {
  const query = route.query ? Object.keys(route.query.shape) : [];
  return `${methodOf(key)} ${pathOf(key)}${query.length === 0 ? '' : `?${query.map((name) => `${name}=`).join('&')}`}`;
}

function does(route: RouteDeclaration): string {
  const notes = [
    ...(route.access === 'public' ? ['no auth'] : []),
    ...(route.mountedUnless ? [`not there with \`${route.mountedUnless}\``] : []),
  ];
  return [
    `${route.summary}${notes.length === 0 ? '' : ` (${notes.join('; ')})`}${route.description ? '.' : ''}`,
    route.description,
    route.streamToken && `A token of \`${route.streamToken}\` stands in for the key as \`?token=\`.`,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
}

function answers(key: RouteKey, route: RouteDeclaration): string {
  const own = new Set<ErrorCode>([...route.errors, ...impliedErrors(key, route)]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODE_NAMES) {
    if (!own.has(code) || EVERYWHERE.includes(code)) continue;
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const refusals = [...byStatus]
    .sort(([a], [b]) => a - b)
    .map(
      ([status, codes]) =>
        `${status} ${codes.map((code) => `\`${code}\``).join(', ')}${status === 429 ? ' + `Retry-After`' : ''}`,
    );
  const answered = Object.entries(route.answers).map(([status, answer]) => `${status}${answerBody(answer)}`);
  return [...answered, ...refusals, ...(route.answersRunEnd ? [runEndAnswerText(route.answersRunEnd)] : [])].join('; ');
}

/** What an answer carries, shortly (its media types or its JSON's top-level fields, and its headers), and when it is given. */
function answerBody(answer: RouteAnswer): string {
  const bodies = [
    ...(answer.media ?? []).map((media) => `\`${media}\``),
    ...(answer.json ? [jsonShape(answer.json.name, answer.json.schema)] : []),
  ];
  const headers = Object.keys(answer.headers ?? {}).map((name) => ` + \`${name}\``);
  return `${bodies.length === 0 ? '' : ` ${bodies.join(' or ')}`}${headers.join('')}: ${answer.description.replace(/\.$/, '')}`;
}

/** `{a, b?}` for an object (`?`: a field that may be absent); its name for anything else. */
function jsonShape(name: string, schema: z.ZodType): string {
  if (!(schema instanceof z.ZodObject)) return `\`${name}\``;
  const fields = Object.entries(schema.shape as Record<string, z.ZodType>).map(
    ([field, value]) => `${field}${value.isOptional() ? '?' : ''}`,
  );
  return `\`{${fields.join(', ')}}\``;
}

/** Text that stays in one Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/(?<!\\)\|/g, '\\|');
}
