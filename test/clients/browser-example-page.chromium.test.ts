import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { type LaunchedChromium, launchChromium } from '../support/launch-chromium.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { startStreamCutProxy } from '../support/stream-cut-proxy.js';
import { textByTurn } from '../support/text-by-turn.js';

const SERVE = fileURLToPath(new URL('../../examples/browser/serve.mjs', import.meta.url));
const BUILD_CLIENT = fileURLToPath(new URL('../../scripts/build-browser-client.mjs', import.meta.url));

/**
 * Starts `serve.mjs` on a free port, serving `clientJs` as the page's client; resolves to its
 * process, the page's origin and its start-up line.
 */
async function servePage(clientJs: string): Promise<{ child: ChildProcess; origin: string; banner: string }> {
  const child = spawn(process.execPath, [SERVE], {
    env: { ...process.env, PORT: '0', RUNBRIDGE_CLIENT_JS: clientJs },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`serve.mjs exited (${code}) before it printed its URL`);
  });
  const [banner] = (await Promise.race([once(createInterface({ input: child.stdout! }), 'line'), exited])) as [string];
  exited.catch(() => undefined); // it exits when the test stops it
  const origin = /^(http:\/\/127\.0\.0\.1:\d+)\//.exec(banner)?.[1];
  if (!origin) {
    child.kill();
    throw new Error(`serve.mjs printed no URL: ${banner}`);
  }
  return { child, origin, banner };
}

/**
 * `examples/browser/index.html`, served by `examples/browser/serve.mjs` on its own origin with the
 * browser build of `runbridge/client` — built from the current sources for this test — in headless
 * Chromium against bridges that allow that origin by CORS: one open, one that wants a key.
 */
describe('the browser example page', () => {
  let page: { child: ChildProcess; origin: string; banner: string };
  let open: TestBridge;
  let keyed: TestBridge;
  let browser: LaunchedChromium;
  let buildDir: string;

  beforeAll(async () => {
    buildDir = await mkdtemp(join(tmpdir(), 'runbridge-client-'));
    const clientJs = join(buildDir, 'client.js');
    await promisify(execFile)(process.execPath, [BUILD_CLIENT, clientJs]);
    page = await servePage(clientJs);
    open = await startTestBridge({ RUNBRIDGE_CORS_ORIGINS: page.origin });
    keyed = await startTestBridge(
      { RUNBRIDGE_CORS_ORIGINS: page.origin, RUNBRIDGE_API_KEYS: 'page-key-0123456789' },
      { apiKey: 'page-key-0123456789' },
    );
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    if (page?.child.exitCode === null && page.child.signalCode === null) {
      page.child.kill();
      await once(page.child, 'exit');
    }
    await open?.shutdown();
    await keyed?.shutdown();
    if (buildDir) await rm(buildDir, { recursive: true, force: true });
  });

  /**
   * Opens the page, starts an arith run on `bridge` (through `via`, a proxy in front of it, when
   * given) with the form, and waits for the result row; `requests` are the page's requests to the bridge.
   */
  async function runThroughForm(
    bridge: TestBridge,
    key?: string,
    via: string = bridge.url,
  ): Promise<{ tab: Page; runId: string; log: RunEvent[]; requests: Request[] }> {
    const tab = await browser.context.newPage();
    const requests: Request[] = [];
    tab.on('request', (request) => {
      if (request.url().startsWith(via)) requests.push(request);
    });
    await tab.goto(`${page.origin}/`);
    await tab.fill('#bridge', via);
    await tab.fill('#env', 'arith');
    if (key) await tab.fill('#key', key);
    await tab.click('button');
    await tab.waitForSelector('#transcript .result', { timeout: 30_000 });
    const runId = /^(run_\w+) /.exec((await tab.textContent('#status')) ?? '')?.[1];
    expect(runId).toBeDefined();
    return { tab, runId: runId!, log: await bridge.readEvents(runId!), requests };
  }

  it('says which RUNBRIDGE_CORS_ORIGINS the bridge needs, at start-up and on the page', async () => {
    expect(page.banner).toContain(`RUNBRIDGE_CORS_ORIGINS=${page.origin}`);
    const tab = await browser.context.newPage();
    await tab.goto(`${page.origin}/`);
    expect(await tab.textContent('body')).toContain(`RUNBRIDGE_CORS_ORIGINS=${page.origin} npm start`);
    await tab.close();
  });

  it('shows the streamed text, a row per tool call with its duration and reward, and the result; then closes the stream', async () => {
    const { tab, log, requests } = await runThroughForm(open);

    const toolRows = await tab.$$eval('#transcript .tool', (rows) =>
      rows.map((row) => ({ className: row.className, text: row.textContent })),
    );
    const completed = log.filter((event) => event.event === 'tool.completed');
    expect(completed.length).toBeGreaterThanOrEqual(2);
    expect(toolRows).toEqual(
      completed.map((event) => ({
        className: 'tool done',
        text: expect.stringMatching(
          new RegExp(
            `^${event.tool} .* · ${event.duration.toFixed(2)}s${event.reward === null ? '' : ` · reward ${event.reward}`}\\n→ `,
          ),
        ),
      })),
    );
    expect(toolRows.at(-1)?.text).toContain('submit');
    expect(toolRows.at(-1)?.text).toContain('· reward 1\n→ Correct');

    expect(await tab.$$eval('#transcript .message', (rows) => rows.map((row) => row.textContent))).toEqual(
      textByTurn(log),
    );
    const last = log.at(-1)!;
    expect(last.event).toBe('run.completed');
    expect(await tab.textContent('#transcript .result')).toBe(
      last.event === 'run.completed'
        ? `completed · reward 1 · ${last.turns} turns · ${last.usage.total_tokens} tokens · stop: finished`
        : '',
    );

    // Ended at the terminal event: the bridge has no subscriber left, and the page asked for the stream once.
    await expect.poll(() => open.registry.localStats().subscribers).toBe(0);
    expect(requests.filter((request) => request.method() === 'GET' && request.url().includes('/events'))).toHaveLength(
      1,
    );
    await tab.close();
  });

  it('sends the API key in a header, never in a URL, when one is given', async () => {
    const { tab, log, requests } = await runThroughForm(keyed, 'page-key-0123456789');
    expect(log.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
    expect(await tab.textContent('#transcript .result')).toMatch(/^completed · reward 1 /);
    const sent = requests.filter((request) => request.method() !== 'OPTIONS');
    expect(sent.map((request) => `${request.method()} ${new URL(request.url()).pathname}`)).toEqual([
      'POST /v1/runs',
      expect.stringMatching(/^GET \/v1\/runs\/run_\w+\/events$/),
    ]);
    for (const request of sent) {
      expect(await request.headerValue('authorization')).toBe('Bearer page-key-0123456789');
      expect(request.url()).not.toContain('page-key-0123456789');
    }
    await tab.close();
  });

  it('shows the whole run when its event stream ends early, resuming where it broke off', async () => {
    let streams = 0;
    // Ended cleanly after six events (as a proxy's timeout may): a connection destroyed instead can make
    // Chromium drop the last bytes it received, and the page would rightly resume from further back.
    const proxy = await startStreamCutProxy(open.url, ({ method, url }) =>
      method === 'GET' && url.includes('/events') && streams++ === 0 ? { frames: 6, end: true } : undefined,
    );
    try {
      const { tab, log } = await runThroughForm(open, undefined, proxy.url);
      expect(await tab.$$eval('#transcript .message', (rows) => rows.map((row) => row.textContent))).toEqual(
        textByTurn(log),
      );
      expect(await tab.textContent('#transcript .result')).toMatch(/^completed · reward 1 /);
      const resumed = proxy.requests.filter((request) => request.method === 'GET' && request.url.includes('/events'));
      expect(resumed).toHaveLength(2);
      expect(resumed[1]!.lastEventId).toBe('5');
      await tab.close();
    } finally {
      await proxy.close();
    }
  });

  it("tells what to set when the bridge does not allow the page's origin", async () => {
    const tab = await browser.context.newPage();
    const otherOrigin = page.origin.replace('127.0.0.1', 'localhost');
    await tab.goto(`${otherOrigin}/`);
    await tab.fill('#bridge', open.url);
    await tab.click('button');
    await expect.poll(() => tab.textContent('#status')).toContain(`with RUNBRIDGE_CORS_ORIGINS=${otherOrigin}?`);
    await tab.close();
  });
});
