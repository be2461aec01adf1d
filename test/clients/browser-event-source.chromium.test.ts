import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunEventSchema } from '../../src/protocol/run-events.js';
import { type LaunchedChromium, launchChromium } from '../support/launch-chromium.js';
import { type PageProxy, startPageProxy } from '../support/page-proxy.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * The test page: a plain browser EventSource on the events URL in the page's hash, one
 * `addEventListener` per event type, recording what each listener hears in `window.state`.
 */
function testPage(eventTypes: readonly string[]): string {
  return `<!doctype html>
<meta charset="utf-8">
<title>runbridge EventSource</title>
<script>
  const state = { received: [], opens: 0, errors: 0, closed: false };
  window.state = state;
  const source = new EventSource(decodeURIComponent(location.hash.slice(1)));
  for (const type of ${JSON.stringify(eventTypes)}) {
    source.addEventListener(type, (message) => {
      const event = JSON.parse(message.data);
      state.received.push({ listener: type, event: event.event, seq: event.seq, lastEventId: message.lastEventId });
    });
  }
  source.onopen = () => { state.opens += 1; };
  source.onerror = () => {
    state.errors += 1;
    if (source.readyState === EventSource.CLOSED) state.closed = true;
  };
</script>`;
}

interface PageState {
  received: Array<{ listener: string; event: string; seq: number; lastEventId: string }>;
  opens: number;
  errors: number;
  closed: boolean;
}

describe('a browser EventSource in headless Chromium', () => {
  let bridge: TestBridge;
  let proxy: PageProxy;
  let browser: LaunchedChromium;
  let releaseSecondTurn!: () => void;

  beforeAll(async () => {
    const secondTurn = new Promise<void>((resolve) => {
      releaseSecondTurn = resolve;
    });
    bridge = await startTestBridge(
      { RUNBRIDGE_DEFAULT_ENV: 'probe' },
      {
        environments: [probeEnvironment],
        providers: [
          scriptedProvider({
            gated: [
              { text: 'Echoing. ', toolCalls: [{ name: 'echo', arguments: '{"text":"hi"}' }] },
              { gate: secondTurn, text: 'Done.' },
            ],
          }),
        ],
      },
    );
    proxy = await startPageProxy(
      bridge.url,
      testPage(RunEventSchema.options.map((option) => option.shape.event.value)),
    );
    browser = await launchChromium();
  });

  afterAll(async () => {
    releaseSecondTurn();
    await browser?.close();
    await proxy?.close();
    await bridge?.shutdown();
  });

  const state = async (page: Page) =>
    JSON.parse((await page.evaluate('JSON.stringify(window.state)')) as string) as PageState;

  it('hears the typed events through addEventListener, resumes after a server-side drop with Last-Event-ID, and stops at the end', {
    timeout: 90_000,
  }, async () => {
    const runId = await bridge.startRun({ model: 'scripted:gated' });
    const eventsPath = `/v1/runs/${runId}/events`;
    const page = await browser.context.newPage();
    await page.goto(`${proxy.url}/#${encodeURIComponent(eventsPath)}`);

    // The run holds before its second turn; the browser has everything up to the first tool's result.
    await page.waitForFunction('window.state.received.some((entry) => entry.event === "tool.completed")', undefined, {
      timeout: 60_000,
    });
    const beforeDrop = await state(page);
    const lastBeforeDrop = beforeDrop.received.at(-1)!.seq;
    expect(proxy.dropOpenResponses()).toBe(1);

    // The browser reconnects by itself, naming the last event it has; then the run goes on.
    await expect
      .poll(() => proxy.requests.filter((request) => request.url === eventsPath).length, { timeout: 60_000 })
      .toBe(2);
    releaseSecondTurn();
    await page.waitForFunction('window.state.closed', undefined, { timeout: 60_000 });

    const log = await bridge.readEvents(runId);
    const heard = await state(page);
    expect(heard.received.map((entry) => entry.seq)).toEqual(log.map((event) => event.seq));
    expect(
      heard.received.every((entry) => entry.listener === entry.event && entry.lastEventId === String(entry.seq)),
    ).toBe(true);
    expect(heard.received.map((entry) => entry.event)).toEqual(log.map((event) => event.event));
    expect(log.at(-1)).toMatchObject({ event: 'run.completed', output: 'Done.' });

    // Three requests: the first, the resume after the drop, and the one after the end that the 204 stops.
    const requests = proxy.requests.filter((request) => request.url === eventsPath);
    expect(requests.map(({ lastEventId, status }) => ({ lastEventId, status }))).toEqual([
      { lastEventId: undefined, status: 200 },
      { lastEventId: String(lastBeforeDrop), status: 200 },
      { lastEventId: String(log.at(-1)!.seq), status: 204 },
    ]);
    expect(heard.opens).toBe(2);
    await page.close();
  });
});
