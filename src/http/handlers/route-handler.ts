import type Router from 'koa-router';
import type { z } from 'zod';
import type { AppState } from '../app-deps.js';
import { parseInput } from '../parse-input.js';
import { readJsonBody } from '../read-json-body.js';
import type { NamedSchema, RouteTable } from '../routes/route.js';
import { IdempotencyKeySchema } from '../routes/runs-routes.js';

/** What a handler gets: Koa's context of a matched route, its `params` decoded, `state.owner` set where the route needs a caller. */
export type RouteContext = Router.RouterContext<AppState>;

/** What a route does once it is matched and its caller named (or refused). */
export type RouteHandler = (ctx: RouteContext) => Promise<void> | void;

/**
 * One handler for each route of `Table`, by key; a route mounted only under a setting
 * (`mountedUnless`) may have none, and is then absent.
 */
export type RouteHandlers<Table extends RouteTable> = {
  readonly [Key in keyof Table]: Table[Key] extends { mountedUnless: string } ? RouteHandler | undefined : RouteHandler;
};

/** The query of `ctx`, validated with the route's query schema (a 400 naming each bad key otherwise). */
export function readQuery<Schema extends z.ZodType>(ctx: RouteContext, schema: Schema): z.output<Schema> {
  return parseInput(schema as z.ZodType<z.output<Schema>>, ctx.query, 'query');
}

/** The JSON body of `ctx`, read within `limitBytes` and validated with the route's body schema; `what` names it in a 400. */
export async function readBody<Schema extends z.ZodType>(
  ctx: RouteContext,
  body: { json: NamedSchema<Schema> },
  limitBytes: number,
  what: string,
): Promise<z.output<Schema>> {
  const schema = body.json.schema as z.ZodType<z.output<Schema>>;
  return parseInput(schema, await readJsonBody(ctx.req, limitBytes), what);
}

/** The request's `Idempotency-Key`, validated, or undefined without one (docs/protocol.md §2.1). */
export function idempotencyKeyOf(ctx: RouteContext): string | undefined {
  const header = ctx.get('Idempotency-Key');
  return header === '' ? undefined : parseInput(IdempotencyKeySchema, header, 'Idempotency-Key header');
}

/** The request's `Last-Event-ID`, or undefined without one. */
export function lastEventIdOf(ctx: RouteContext): string | undefined {
  const header = ctx.get('Last-Event-ID');
  return header === '' ? undefined : header;
}
