import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { type HeldOrs, type Instance, postRun, startHeldOrs, startInstance } from '../multi-instance/serve-cluster.js';
import { type LaunchedChromium, launchChromium } from '../support/launch-chromium.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { type BuiltPage, buildPage } from './support/build-page.js';
import { openChatPage, PATIENCE } from './support/chat-page.js';

/**
 * A run whose instance dies (docs/protocol.md §8), watched on the chat page of another instance: the
 * survivor ends it with `run.failed` `instance_lost`, whose message the bridge also writes as the
 * error and the output of the call that was running. The page says it once, where the run's end goes;
 * the call's card says the run failed while it ran.
 */
describe('the chat page when the instance running a run is lost', () => {
  let page: BuiltPage | undefined;
  let redis: TestRedis | undefined;
  let ors: HeldOrs | undefined;
  let survivor: TestBridge | undefined;
  let doomed: Instance | undefined;
  let browser: LaunchedChromium | undefined;

  beforeAll(async () => {
    page = await buildPage();
    redis = await startTestRedis();
    ors = await startHeldOrs();
    const shared = {
      ORS_URL: ors.url,
      RUNBRIDGE_REDIS_URL: redis.url,
      RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
      RUNBRIDGE_LEASE_SECONDS: '2',
      RUNBRIDGE_SWEEP_SECONDS: '0.1',
    };
    // The page's instance starts first: it writes the shared secret the other reads.
    survivor = await startTestBridge(shared, { uiDir: page.dir, environments: builtinEnvironments });
    doomed = await startInstance('doomed', { ...shared, PORT: '0', HOST: '127.0.0.1' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    if (doomed && doomed.child.exitCode === null && doomed.child.signalCode === null) doomed.child.kill('SIGKILL');
    await doomed?.exited;
    ors?.release();
    await survivor?.shutdown();
    await ors?.close();
    await redis?.stop();
    await page?.remove();
  });

  it("says the instance_lost message once, in the run's outcome, not again in the call's card", async () => {
    ors!.holding.add('arith');
    const { runId } = await postRun(doomed!, { env: 'arith', task: { split: 'train', index: 1 } });
    const { tab, problems } = await openChatPage(browser!, survivor!.url, { hash: `#/runs/${runId}` });
    await tab.locator('.tool-running').waitFor(PATIENCE);

    doomed!.child.kill('SIGKILL');
    await tab.locator('.outcome-failed').waitFor({ timeout: 20_000 });
    const failed = (await survivor!.readEvents(runId)).at(-1)!;
    expect(failed).toMatchObject({ event: 'run.failed', code: 'instance_lost' });
    const message = failed.event === 'run.failed' ? failed.error : '';

    expect(await tab.locator('.outcome').textContent()).toBe(`Failed${message}code instance_lost`);
    const card = tab.locator('.tool-card');
    expect(await card.locator('.tool-error').textContent()).toBe('The run failed while this call ran: see why below.');
    expect(await card.locator('.tool-output').count()).toBe(0);
    expect((await tab.locator('main').textContent())?.split(message).length).toBe(2);
    expect(problems).toEqual([]);
    await tab.close();
  }, 60_000);
});
