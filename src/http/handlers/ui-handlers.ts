import type { Context } from 'koa';
import type { META_ROUTES } from '../routes/meta-routes.js';
import { UI_ENTRY, type UiAsset, type UiAssets } from '../ui-assets.js';
import type { RouteHandlers } from './route-handler.js';

/**
 * Headers of every answer of the chat page. The page loads nothing but its own files and talks to
 * nothing but this bridge, so the policy can be strict: an injected script or style could not run,
 * and no data could leave for another host.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    // The worker that draws Markdown off the page's thread (src/ui/markdown/markdown-worker.ts), said
    // outright rather than left to the fallback on script-src.
    "worker-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    // The API and its event streams, on this origin only.
    "connect-src 'self'",
    "base-uri 'none'",
    // The page's forms are handled by its script and never submitted by the browser.
    "form-action 'none'",
    // No other site may frame the page and trick a click on Cancel (clickjacking).
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  // A run id in the URL is nobody else's business.
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  // Revalidated on every load (a cheap 304 by ETag), so a browser never runs a page older than the bridge's.
  'Cache-Control': 'no-cache',
};

/** What `GET /` answers when the bridge runs from a clone where the page was never built. */
const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>runbridge · chat page not built</title></head>
<body><h1>The chat page is not built</h1>
<p>This bridge runs from sources without a build of its page. Run <code>npm run build</code> in the runbridge
folder, then reload. The API works without it; <code>RUNBRIDGE_UI=0</code> turns the page off.</p></body></html>
`;

/**
 * `GET /`, the chat page, and `GET /ui/:file`, its scripts, styles and fonts (docs/ui.md). Open
 * to all, like `/health`: the page holds no data, and it asks for the API key itself when the
 * bridge wants one. None without `assets` (`RUNBRIDGE_UI=0`).
 */
export function uiHandlers(
  assets: UiAssets | undefined,
): Pick<RouteHandlers<typeof META_ROUTES>, 'GET /' | 'GET /ui/:file'> {
  if (assets === undefined) return { 'GET /': undefined, 'GET /ui/:file': undefined };
  return {
    'GET /': async (ctx) => {
      const page = await assets.get(UI_ENTRY);
      if (page === undefined) {
        ctx.set(PAGE_HEADERS);
        ctx.status = 503;
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = NOT_BUILT;
        return;
      }
      answer(ctx, page);
    },
    'GET /ui/:file': async (ctx) => {
      const file = ctx.params.file!;
      // The entry is served at / only, so the page has one address.
      const asset = file === UI_ENTRY ? undefined : await assets.get(file);
      if (asset !== undefined) answer(ctx, asset);
    },
  };
}

function answer(ctx: Context, asset: UiAsset): void {
  ctx.set(PAGE_HEADERS);
  ctx.set('ETag', asset.etag);
  ctx.type = asset.type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.body = asset.body;
}
