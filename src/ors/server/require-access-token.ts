import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Next } from 'koa';
import { accessDenied } from './ors-http-errors.js';

/**
 * Refuses (401) every request that does not bear `Authorization: Bearer <token>`. Compared as
 * SHA-256 digests with `timingSafeEqual`, so timing says nothing about the token.
 */
export function requireAccessToken(token: string) {
  const expected = digest(token);
  return async (ctx: Context, next: Next): Promise<void> => {
    const presented = /^Bearer (\S+)$/.exec(ctx.get('Authorization'))?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) throw accessDenied();
    await next();
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
