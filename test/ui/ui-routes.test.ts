import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: the build script is plain JavaScript, run by `npm run build` too.
import { buildUi } from '../../scripts/build-ui.mjs';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { type BuiltPage, buildPage } from './support/build-page.js';

/**
 * The modules the page may be built from: its own sources, the client and what the client uses,
 * Preact, the Markdown parser, sanitiser and highlighter (the core and the languages it registers), the font.
 */
const PAGE_SIDE = [
  /^src\/ui\//,
  /^src\/client\/[\w-]+\.ts$/,
  /^src\/sse\/read-sse-events\.ts$/,
  /^src\/http-client\/(backoff|network-failure)\.ts$/,
  // The one rule of which event moves a run to which status, shared with the server.
  /^src\/protocol\/run-status\.ts$/,
  // The list of event types the client knows, and `fillPath` of the route declarations: neither loads zod.
  /^src\/protocol\/run-event-types\.ts$/,
  /^src\/http\/routes\/route\.ts$/,
  /^node_modules\/eventsource-parser\//,
  /^node_modules\/preact\//,
  /^node_modules\/marked\//,
  /^node_modules\/dompurify\//,
  /^node_modules\/highlight\.js\/(es|lib)\/(core|languages\/[\w-]+)\.js$/,
  /^node_modules\/@fontsource-variable\/inter\/files\/inter-latin(-ext)?-wght-normal\.woff2$/,
];

/** What the page's JavaScript may weigh gzipped, fonts left out (docs/ui.md says what it weighs now). */
const SCRIPT_BUDGET_GZIPPED = 120 * 1024;

describe('the chat page build', () => {
  let page: BuiltPage;
  beforeAll(async () => {
    page = await buildPage();
  });
  afterAll(() => page?.remove());

  it('bundles the page from its sources and runbridge/client, with no server code and nothing from dist/', () => {
    expect(page.inputs).toEqual(expect.arrayContaining(['src/ui/main.tsx', 'src/client/index.ts']));
    expect(page.inputs.filter((input) => !PAGE_SIDE.some((allowed) => allowed.test(input)))).toEqual([]);
  });

  it('keeps its JavaScript within its budget: 120 KB gzipped', async () => {
    const gzipped = gzipSync(await readFile(join(page.dir, 'app.js'))).length;
    expect(gzipped).toBeLessThanOrEqual(SCRIPT_BUDGET_GZIPPED);
  });
});

describe('GET / and /ui/:file', () => {
  let page: BuiltPage;
  let bridge: TestBridge;

  beforeAll(async () => {
    page = await buildPage();
    bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: 'ui-key-0123456789' },
      { apiKey: 'ui-key-0123456789', uiDir: page.dir },
    );
  });
  afterAll(async () => {
    await bridge?.shutdown();
    await page?.remove();
  });

  it('serves the page to anyone, with a strict Content-Security-Policy, while the API still wants the key', async () => {
    const response = await fetch(`${bridge.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toBe(await readFile(join(page.dir, 'index.html'), 'utf8'));
    const policy = response.headers.get('content-security-policy') ?? '';
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "worker-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "frame-ancestors 'none'",
    ]) {
      expect(policy).toContain(directive);
    }
    expect(policy).not.toContain('unsafe');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await fetch(`${bridge.url}/v1/models`)).status).toBe(401);
  });

  it('serves each built file with its type, and answers 304 to a browser that has it', async () => {
    for (const [file, type] of [
      ['app.js', 'text/javascript; charset=utf-8'],
      ['markdown-worker.js', 'text/javascript; charset=utf-8'],
      ['app.css', 'text/css; charset=utf-8'],
      ['favicon.svg', 'image/svg+xml'],
      ['inter-latin-wght-normal.woff2', 'font/woff2'],
      ['inter-license.txt', 'text/plain; charset=utf-8'],
    ] as const) {
      const response = await fetch(`${bridge.url}/ui/${file}`);
      expect(response.status, file).toBe(200);
      expect(response.headers.get('content-type')).toBe(type);
      expect(Buffer.from(await response.arrayBuffer()).equals(await readFile(join(page.dir, file)))).toBe(true);
      const etag = response.headers.get('etag')!;
      expect(etag).toMatch(/^"[\w-]+"$/);
      // As a browser revalidates on reload (fetch alone would add `Cache-Control: no-cache`, which asks for the body).
      const again = await fetch(`${bridge.url}/ui/${file}`, {
        headers: { 'If-None-Match': etag, 'Cache-Control': 'max-age=0' },
      });
      expect(again.status).toBe(304);
    }
    expect((await fetch(`${bridge.url}/`, { method: 'HEAD' })).status).toBe(200);
  });

  it('answers 404 for anything that is not a file of the build, the page itself under /ui/ included', async () => {
    for (const path of ['/ui/missing.js', '/ui/index.html', '/ui/..%2F..%2Fpackage.json', '/ui/', '/index.html']) {
      // With the key, so paths the page does not serve at all reach the end of the API's routes.
      const response = await bridge.fetch(path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
    }
  });
});

describe('the chat page switched off or not built', () => {
  it('is not there with RUNBRIDGE_UI=0: / is a 404 like any unknown route', async () => {
    const page = await buildPage();
    const bridge = await startTestBridge({ RUNBRIDGE_UI: '0' }, { uiDir: page.dir });
    try {
      for (const path of ['/', '/ui/app.js']) {
        const response = await fetch(`${bridge.url}${path}`);
        expect(response.status, path).toBe(404);
        expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
      }
      expect((await fetch(`${bridge.url}/health`)).status).toBe(200);
    } finally {
      await bridge.shutdown();
      await page.remove();
    }
  });

  it('says how to build it when there is no build, and serves it once built, without a restart', async () => {
    const root = await mkdtemp(join(tmpdir(), 'runbridge-ui-'));
    const dir = join(root, 'ui');
    const bridge = await startTestBridge({}, { uiDir: dir });
    try {
      const missing = await fetch(`${bridge.url}/`);
      expect(missing.status).toBe(503);
      expect(missing.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await missing.text()).toContain('Run <code>npm run build</code>');
      await buildUi(dir);
      const built = await fetch(`${bridge.url}/`);
      expect(built.status).toBe(200);
      expect(await built.text()).toContain('<script type="module" src="/ui/app.js"></script>');
    } finally {
      await bridge.shutdown();
      await rm(root, { recursive: true, force: true });
    }
  });
});
