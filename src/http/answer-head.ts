import type { Context } from 'koa';

/**
 * Answers a `HEAD` of a stream with the stream's `headers` and no body, and says whether it did.
 * Koa serves `HEAD` through the `GET` route, which would open the stream: a probe would then wait on
 * the run for headers that a `HEAD` never gets, holding a stream slot all the while (docs/api.md,
 * "Event streams").
 */
export function answerHead(ctx: Context, headers: Readonly<Record<string, string>>): boolean {
  if (ctx.method !== 'HEAD') return false;
  ctx.status = 200;
  ctx.set(headers);
  return true;
}
