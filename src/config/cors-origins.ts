import { commaList, type Kind } from './setting-kinds.js';

/**
 * Origins allowed by CORS, comma-separated. Each must be `*` or written as a browser sends `Origin`,
 * or it could never match: an origin that is not says how to write it.
 */
export function corsOrigins(): Kind<string[]> {
  return {
    schema: commaList.superRefine((origins, context) => {
      for (const origin of origins.filter((item) => !isOrigin(item))) {
        context.addIssue({
          code: 'custom',
          message:
            `${JSON.stringify(origin)} is not an origin a browser sends, so it could never match; ` +
            `write scheme, host and port, e.g. ${JSON.stringify(exampleOrigin(origin))} (or * for any origin)`,
        });
      }
    }),
    accepts: 'comma-separated origins (`scheme://host[:port]`), or `*`',
    default: '— (CORS off)',
  };
}

/**
 * True for `*` and for what a browser sends as `Origin`: `scheme://host[:port]`, nothing after it (a
 * trailing `/` is forgiven, as the CORS middleware ignores it). An http(s) origin must be written as
 * browsers send it: lower case, without its scheme's default port.
 */
function isOrigin(text: string): boolean {
  if (text === '*') return true;
  const bare = text.replace(/\/+$/, '');
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/i.test(bare)) return false;
  if (!/^https?:/i.test(bare)) return true;
  try {
    return new URL(bare).origin === bare;
  } catch {
    return false;
  }
}

/** The origin `text` probably means: its own when it is a URL, with `http://` in front when it has no scheme. */
function exampleOrigin(text: string): string {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  try {
    const url = new URL(hasScheme ? text : `http://${text}`);
    if (/^https?:$/.test(url.protocol)) return url.origin;
  } catch {
    // Not even that: fall back to an example.
  }
  return 'http://localhost:3000';
}
