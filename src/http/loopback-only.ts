import type { Context, Next } from 'koa';
import { RunbridgeError } from '../errors.js';

/** `Host` names that can only mean this machine: `localhost`, `127.0.0.0/8` and `[::1]`, with any port. */
const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?$/i;
/** `application/json` or a `+json` type, with or without parameters. */
export const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * What keeps other web pages out of a server that has no API keys (docs/security.md). A page can
 * make a browser send requests to `127.0.0.1`, but (1) through a name it controls that resolves to
 * it (DNS rebinding), whose `Host` is then that name — refused unless it is a loopback name; and (2)
 * only "simple" cross-site POSTs without a preflight, which cannot carry a JSON content type — so
 * every POST must have one, an empty body included. A request without `Host` (HTTP/1.0) is not a
 * browser's and passes.
 */
export function loopbackOnly() {
  return async (ctx: Context, next: Next): Promise<void> => {
    const host = ctx.get('Host');
    if (host !== '' && !LOOPBACK_HOST.test(host)) {
      throw new RunbridgeError(
        `Host "${host.slice(0, 100)}" is not a loopback name. Without API keys the bridge answers only requests ` +
          'addressed to localhost, 127.0.0.1 or [::1] (a guard against DNS rebinding); set RUNBRIDGE_API_KEYS to serve others.',
        { code: 'host_not_allowed' },
      );
    }
    const type = ctx.get('Content-Type');
    if (ctx.method === 'POST' && !JSON_CONTENT_TYPE.test(type)) {
      // A bodiless POST (a cancel) needs the header too, which surprises curl users: say so in their words.
      const came =
        type === '' ? 'without a Content-Type header' : `with ${JSON.stringify(`Content-Type: ${type.slice(0, 100)}`)}`;
      throw new RunbridgeError(
        `This POST came ${came}. Send every POST with the header "Content-Type: application/json" ` +
          "(curl: -H 'Content-Type: application/json'), an empty body included: without API keys that " +
          'is what keeps other web pages from posting here (CSRF).',
        { code: 'unsupported_media_type' },
      );
    }
    await next();
  };
}
