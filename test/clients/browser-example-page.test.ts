import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { type LaunchedChromium, launchChromium } from '../support/launch-chromium.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { textByTurn } from '../support/text-by-turn.js';

const SERVE = fileURLToPath(new URL('../../examples/browser/serve.mjs', import.meta.url));

/** Starts `serve.mjs` on a free port; resolves to its process, the page's origin and its start-up line. */
async function servePage(): Promise<{ child: ChildProcess; origin: string; banner: string }> {
  const child = spawn(process.execPath, [SERVE], {
    env: { ...process.env, PORT: '0' },
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

/** Records every EventSource the page makes, so the test can see where it points and whether the page closed it. */
const RECORD_EVENT_SOURCES = `
  window.sources = [];
  window.EventSource = class extends window.EventSource {
    constructor(...args) {
      super(...args);
      window.sources.push(this);
    }
  };`;

/**
 * `examples/browser/index.html`, served by `examples/browser/serve.mjs` on its own origin, in headless
 * Chromium against bridges that allow that origin by CORS: one open, one that wants a key (the page
 * then streams through a stream token).
 */
describe('the browser example page', () => {
  let page: { child: ChildProcess; origin: string; banner: string };
  let open: TestBridge;
  let keyed: TestBridge;
  let browser: LaunchedChromium;

  beforeAll(async () => {
    page = await servePage();
    open = await startTestBridge({ RUNBRIDGE_CORS_ORIGINS: page.origin });
    keyed = await startTestBridge(
      { RUNBRIDGE_CORS_ORIGINS: page.origin, RUNBRIDGE_API_KEYS: 'page-key' },
      { apiKey: 'page-key' },
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
  });

  /** Opens the page, starts an arith run on `bridge` through the form, and waits for the result row. */
  async function runThroughForm(
    bridge: TestBridge,
    key?: string,
  ): Promise<{ tab: Page; runId: string; log: RunEvent[] }> {
    const tab = await browser.context.newPage();
    await tab.addInitScript(RECORD_EVENT_SOURCES);
    await tab.goto(`${page.origin}/`);
    await tab.fill('#bridge', bridge.url);
    await tab.fill('#env', 'arith');
    if (key) await tab.fill('#key', key);
    await tab.click('button');
    await tab.waitForSelector('#transcript .result', { timeout: 30_000 });
    const runId = /^(run_\w+) /.exec((await tab.textContent('#status')) ?? '')?.[1];
    expect(runId).toBeDefined();
    return { tab, runId: runId!, log: await bridge.readEvents(runId!) };
  }

  it('says which RUNBRIDGE_CORS_ORIGINS the bridge needs, at start-up and on the page', async () => {
    expect(page.banner).toContain(`RUNBRIDGE_CORS_ORIGINS=${page.origin}`);
    const tab = await browser.context.newPage();
    await tab.goto(`${page.origin}/`);
    expect(await tab.textContent('body')).toContain(`RUNBRIDGE_CORS_ORIGINS=${page.origin} npm start`);
    await tab.close();
  });

  it('shows the streamed text, a row per tool call with its duration and reward, and the result; then closes the stream', async () => {
    const { tab, log } = await runThroughForm(open);

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

    // Closed at the terminal event: one stream, and no reconnect to be answered 204.
    expect(await tab.evaluate('window.sources.map((source) => source.readyState)')).toEqual([2]);
    await tab.close();
  });

  it('streams through a stream token when an API key is given, since EventSource cannot send the key', async () => {
    const { tab, log } = await runThroughForm(keyed, 'page-key');
    expect(log.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
    expect(await tab.textContent('#transcript .result')).toMatch(/^completed · reward 1 /);
    const urls = (await tab.evaluate('window.sources.map((source) => source.url)')) as string[];
    expect(urls).toEqual([expect.stringMatching(new RegExp(`^${keyed.url}/v1/runs/run_\\w+/events\\?token=st2\\.`))]);
    expect(urls[0]).not.toContain('page-key');
    await tab.close();
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
