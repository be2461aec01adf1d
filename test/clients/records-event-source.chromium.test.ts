import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedChromium, launchChromium } from '../support/launch-chromium.js';
import { type PageProxy, startPageProxy } from '../support/page-proxy.js';
import { readRecords, startRollout } from '../support/rollout-client.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

const KEY = 'alpha-key-0123456789';

/**
 * The test page, as a browser app follows a batch: with the key (in the page's hash) it asks for a stream
 * token, then opens a plain EventSource on the `records_url` it is given, which cannot carry the key. It
 * records each record and the `end` event in `window.state`, and closes the source at the end.
 */
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>runbridge records EventSource</title>
<script>
  const state = { records: [], end: null, minted: null, errors: 0 };
  window.state = state;
  const { id, key } = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  fetch('/v1/rollouts/' + id + '/stream-token', {
    method: 'POST',
    headers: { Authorization: 'Bearer ' + key, 'Content-Type': 'application/json' },
  })
    .then((response) => response.json())
    .then((answer) => {
      state.minted = answer;
      const source = new EventSource(answer.records_url);
      source.onmessage = (message) => state.records.push({ id: message.lastEventId, record: JSON.parse(message.data) });
      source.addEventListener('end', (message) => {
        state.end = JSON.parse(message.data);
        source.close();
      });
      source.onerror = () => { state.errors += 1; };
    });
</script>`;

interface PageState {
  records: Array<{ id: string; record: unknown }>;
  end: { rollout_id: string; status: string } | null;
  minted: { records_url: string } | null;
  errors: number;
}

describe("a browser EventSource on a batch's records, opened with a stream token", () => {
  let bridge: TestBridge;
  let proxy: PageProxy;
  let browser: LaunchedChromium;

  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_API_KEYS: KEY }, { apiKey: KEY });
    proxy = await startPageProxy(bridge.url, PAGE);
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await bridge?.shutdown();
  });

  const state = async (page: Page) =>
    JSON.parse((await page.evaluate('JSON.stringify(window.state)')) as string) as PageState;

  it('hears every record with its seq as the event id, then the end with the batch’s status', {
    timeout: 90_000,
  }, async () => {
    const id = await startRollout(bridge.fetch, { env: 'arith', tasks: '0:4', samples: 1, model: 'offline' });
    const page = await browser.context.newPage();
    await page.goto(`${proxy.url}/#${encodeURIComponent(JSON.stringify({ id, key: KEY }))}`);
    await page.waitForFunction('window.state.end !== null', undefined, { timeout: 60_000 });

    const heard = await state(page);
    const records = await readRecords(bridge.fetch, id);
    expect(heard.records.map(({ record }) => record)).toEqual(records);
    expect(heard.records.map(({ id: seq }) => seq)).toEqual(records.map((_, seq) => String(seq)));
    expect(heard.end).toEqual({ rollout_id: id, status: 'completed' });
    expect(heard.errors).toBe(0);
    // The browser sent no key on the stream: the token in its URL opened it.
    const streamed = proxy.requests.filter((request) => request.url.startsWith(`/v1/rollouts/${id}/records`));
    expect(streamed.map(({ url, status }) => ({ url, status }))).toEqual([
      { url: heard.minted!.records_url, status: 200 },
    ]);
    await page.close();
  });
});
