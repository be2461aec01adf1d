import { describe, expect, it } from 'vitest';
import { accessibilityViolations, snap, startRunFromForm, useChatPageRig } from './support/chat-page.js';

const KEY = 'ui-key-7f3a-0123456789';

/**
 * The chat page on a bridge with API keys: it asks for a key once, checks it, keeps it for the tab's
 * session, and sends it as a header on every request — the event stream included, which the client
 * reads with fetch, so no key or stream token ever goes into a URL.
 */
describe('the chat page with API keys', () => {
  const rig = useChatPageRig({ RUNBRIDGE_API_KEYS: `other-key-0123456789,${KEY}` }, { apiKey: KEY });

  it('asks for the key once, refuses a wrong one, then plays a run with the key in a header only', async () => {
    const { tab, problems, requests, foreign } = await rig.open({ allowErrorAnswers: true });
    const input = tab.getByLabel('API key', { exact: true });
    await input.waitFor();
    expect(await tab.locator('h1').textContent()).toBe('API key needed');
    expect(await tab.evaluate('document.activeElement.id')).toBe('api-key');
    expect(await accessibilityViolations(tab)).toEqual([]);
    await snap(tab, 'api-key');

    await input.fill('not-a-key');
    await tab.getByRole('button', { name: 'Continue' }).click();
    expect(await tab.getByRole('alert').textContent()).toBe(
      'Key not acceptedThe bridge did not accept the API key. Enter one of the keys in its RUNBRIDGE_API_KEYS.',
    );
    await input.fill(KEY);
    await tab.getByRole('button', { name: 'Continue' }).click();
    const runId = await startRunFromForm(tab, { env: 'arith', index: 4 });
    await tab.locator('.outcome-completed').waitFor();
    expect((await rig.bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.completed' });

    const api = requests.filter((request) => new URL(request.url()).pathname.startsWith('/v1/'));
    const sentWithKey = [];
    for (const request of api) {
      expect(request.url()).not.toContain(KEY);
      expect(request.url()).not.toContain('token=');
      if ((await request.headerValue('authorization')) === `Bearer ${KEY}`) sentWithKey.push(request);
    }
    const paths = sentWithKey.map((request) => `${request.method()} ${new URL(request.url()).pathname}`);
    expect(paths).toEqual(
      expect.arrayContaining([
        'POST /v1/runs',
        `GET /v1/runs/${runId}`,
        `GET /v1/runs/${runId}/events`,
        'GET /v1/environments',
      ]),
    );
    expect(paths.filter((path) => path.endsWith('/stream-token'))).toEqual([]);
    expect(await tab.evaluate('sessionStorage.getItem("runbridge.ui.apiKey")')).toBe(KEY);
    expect(await tab.evaluate('localStorage.length')).toBe(0);

    // A reload keeps the key for the session: no question, the run is there.
    const before = requests.length;
    await tab.reload();
    await tab.locator('.outcome-completed').waitFor();
    expect(await tab.getByLabel('API key', { exact: true }).count()).toBe(0);
    for (const request of requests.slice(before)) {
      if (new URL(request.url()).pathname.startsWith('/v1/')) {
        expect(await request.headerValue('authorization')).toBe(`Bearer ${KEY}`);
      }
    }

    // Forgetting the key asks for one again.
    await tab.getByRole('button', { name: 'Forget key' }).click();
    await tab.getByLabel('API key', { exact: true }).waitFor();
    expect(await tab.evaluate('sessionStorage.getItem("runbridge.ui.apiKey")')).toBeNull();
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await tab.close();
  });

  it('asks again, saying so, when the key the tab kept is no longer accepted', async () => {
    const { tab, problems } = await rig.open({ allowErrorAnswers: true });
    await tab.evaluate('sessionStorage.setItem("runbridge.ui.apiKey", "revoked-key")');
    await tab.reload();
    await tab.getByLabel('API key', { exact: true }).waitFor();
    expect(await tab.locator('.key .lede').textContent()).toBe(
      'The bridge no longer accepts the key this tab had. Enter a valid one to go on.',
    );
    expect(problems).toEqual([]);
    await tab.close();
  });
});
