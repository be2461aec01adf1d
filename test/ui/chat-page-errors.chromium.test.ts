import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge } from '../support/start-test-bridge.js';
import { unusedPort } from '../support/unused-port.js';
import { openChatPage, snap, startRunFromForm, useChatPageRig, waitForForm } from './support/chat-page.js';

/** The text of the page's alert, once there is one. */
async function alertText(tab: Page): Promise<string> {
  const alert = tab.getByRole('alert');
  await alert.waitFor();
  return (await alert.textContent()) ?? '';
}

/**
 * The chat page tells a person what went wrong and what to do, for every error the API answers:
 * a failed run, an unknown run (404), a body over the limit (413), a full queue (429 with
 * Retry-After), and a bridge that is gone. (The key's 401 is in chat-page-access.chromium.test.ts.)
 */
describe('the chat page explains errors', () => {
  const rig = useChatPageRig(
    { RUNBRIDGE_MAX_BODY_BYTES: '2048', RUNBRIDGE_MAX_CONCURRENT_RUNS: '1', RUNBRIDGE_MAX_QUEUED_RUNS: '0' },
    {
      environments: builtinEnvironments,
      providers: [
        scriptedProvider({
          broken: [{ text: 'Let me think. ', error: new Error('the vendor hung up') }],
          hang: [{ hang: true }],
        }),
      ],
    },
  );

  it("shows a failed run's message and code where its outcome goes", async () => {
    const { tab, problems } = await rig.open();
    const runId = await startRunFromForm(tab, { env: 'arith', model: 'scripted:broken' });
    await tab.locator('.outcome-failed').waitFor();
    const failed = (await rig.bridge.readEvents(runId)).at(-1)!;
    expect(failed.event).toBe('run.failed');
    if (failed.event === 'run.failed') {
      expect(await tab.locator('.outcome').textContent()).toBe(`Failed${failed.error}code ${failed.code}`);
    }
    expect(await tab.locator('.badge').first().textContent()).toBe('failed');
    await snap(tab, 'failed');
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('says a run is not on this bridge (404), and why that may be', async () => {
    const { tab, problems } = await rig.open({
      hash: '#/runs/run_nosuchrun0000',
      allowErrorAnswers: true,
    });
    expect(await alertText(tab)).toMatch(
      /^Run not foundThis bridge does not hold that run: it never existed, it was forgotten .*another API key\.$/,
    );
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('says a message over the body limit is too large (413), and keeps the message to shorten', async () => {
    const { tab, problems } = await rig.open({ allowErrorAnswers: true });
    await waitForForm(tab);
    const message = 'Please add these numbers. '.repeat(100);
    await tab.getByLabel('Message').fill(message);
    await tab.getByRole('button', { name: 'Start run' }).click();
    expect(await alertText(tab)).toMatch(
      /^Too large.*RUNBRIDGE_MAX_BODY_BYTES\)\. Shorten the message and try again\.$/,
    );
    expect(await tab.getByLabel('Message').inputValue()).toBe(message);
    expect(tab.url()).not.toContain('#/runs/');
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('says the bridge is busy (429) and when to try again, from Retry-After', async () => {
    const holder = await rig.bridge.startRun({ env: 'arith', model: 'scripted:hang' });
    const { tab, problems } = await rig.open({ allowErrorAnswers: true });
    try {
      await waitForForm(tab);
      await tab.getByRole('button', { name: 'Start run' }).click();
      const text = await alertText(tab);
      expect(text).toMatch(/^The bridge is busy.+ Try again in \d+ seconds?\.$/);
      // The seconds are the bridge's Retry-After.
      const answer = await rig.bridge.fetch('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(429);
      const retryAfter = Number(answer.headers.get('Retry-After'));
      expect(text).toContain(`Try again in ${retryAfter} second`);
      await snap(tab, 'error-busy');
      expect(problems).toEqual([]);
    } finally {
      await rig.bridge.fetch(`/v1/runs/${holder}/cancel`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
      });
      await tab.close();
    }
  });

  it('says when the environments cannot be listed (502 from the ORS server), and offers to try again', async () => {
    const orsless = await startTestBridge(
      { ORS_URL: `http://127.0.0.1:${await unusedPort()}`, RUNBRIDGE_ORS_RETRY_SECONDS: '0.01' },
      { uiDir: rig.uiDir },
    );
    try {
      const { tab, problems } = await openChatPage(rig.browser, orsless.url, { allowErrorAnswers: true });
      expect(await alertText(tab)).toMatch(
        /^Could not list the environments and modelsthe ORS server at http:\/\/127\.0\.0\.1:\d+ did not answer .+ \(ors_unavailable\)Try again$/,
      );
      expect(await tab.getByRole('button', { name: 'Start run' }).isDisabled()).toBe(true);
      const retry = tab.getByRole('button', { name: 'Try again' });
      const environmentsRequests = () =>
        tab.evaluate(
          `performance.getEntriesByType('resource').filter((entry) => entry.name.endsWith('/v1/environments')).length`,
        );
      const before = (await environmentsRequests()) as number;
      await retry.click();
      await expect.poll(environmentsRequests, { timeout: 15_000 }).toBe(before + 1);
      await tab.getByRole('alert').waitFor();
      expect(problems).toEqual([]);
      await tab.close();
    } finally {
      await orsless.shutdown();
    }
  });

  it('says the bridge cannot be reached when it has gone away, naming where it was', async () => {
    const gone = await startTestBridge({}, { uiDir: rig.uiDir });
    const { tab, problems } = await openChatPage(rig.browser, gone.url, { allowErrorAnswers: true });
    await waitForForm(tab);
    await gone.shutdown();
    await tab.getByRole('button', { name: 'Start run' }).click();
    expect(await alertText(tab)).toBe(
      `Bridge unreachableCould not reach the bridge at ${gone.url} to start the run. Check that it is running, then try again.`,
    );
    expect(problems).toEqual([]);
    await tab.close();
  });
});
