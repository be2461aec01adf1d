/** The only schemes a link in model output may use: a web page or an e-mail address. */
const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/**
 * The URL a link in model output may point to, normalised, or undefined when it may not: only
 * absolute `http:`, `https:` and `mailto:` URLs pass. `javascript:`, `data:`, `vbscript:` and every
 * other scheme are refused (however they are spelt: the URL parser drops tabs and folds case), and so
 * are relative URLs, which would point into the bridge itself.
 */
export function safeHref(href: string): string | undefined {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  return SAFE_PROTOCOLS.has(url.protocol) ? url.href : undefined;
}
