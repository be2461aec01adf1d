import { afterAll, describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import { createWorkspaceEnvironment } from '../../adapters/environments/workspace/workspace-environment.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { formatSeconds } from '../../src/ui/state/format.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startStreamCutProxy } from '../support/stream-cut-proxy.js';
import { createTestEnvironment } from '../support/test-environment.js';
import { textByTurn } from '../support/text-by-turn.js';
import {
  openChatPage,
  PATIENCE,
  shownTranscript,
  snap,
  startRunFromForm,
  useChatPageRig,
  waitForForm,
} from './support/chat-page.js';

/** How long the workspace's deep search takes here: long enough to watch its timer move. */
const SLOW_TOOL_MS = 2500;

/** The tool cards a run's log calls for: name, the state line of a finished call, output and chips. */
function expectedTools(log: RunEvent[]) {
  return log.flatMap((event) =>
    event.event === 'tool.completed'
      ? [
          {
            name: event.tool,
            state: `${event.error ? 'failed' : 'done'} · ${formatSeconds(event.duration)}`,
            chips: [
              ...(event.reward === null ? [] : [`reward ${event.reward}`]),
              ...(event.finished ? ['episode finished'] : []),
            ],
          },
        ]
      : [],
  );
}

/**
 * The chat page served by a real bridge, in headless Chromium: whole episodes started from its form
 * and shown as a chat — text, reasoning, tool cards with timers, outcomes — a reload in the middle
 * of a run, the run list, cancelling. The page is built from the current sources for this file.
 */
describe('the chat page plays episodes', () => {
  const test = createTestEnvironment('testenv');
  const probe = test.probe;
  const rig = useChatPageRig(
    { RUNBRIDGE_TOOL_PROGRESS_SECONDS: '0.5' },
    {
      environments: [arithEnvironment, createWorkspaceEnvironment({ slowToolMs: SLOW_TOOL_MS }), test.environment],
      providers: [
        scriptedProvider({
          held: [
            {
              reasoning: 'The user wants me to wait for the test.',
              text: 'Waiting for the test. ',
              toolCalls: [{ name: 'wait', arguments: '{"key":"reload"}' }],
            },
          ],
          hang: [{ hang: true }],
        }),
      ],
    },
  );
  // Lets a run still held go before the bridge shuts down: registered after the rig, this runs before
  // the rig stops (vitest runs after-hooks last registered first).
  afterAll(() => probe.release('reload', 'Released by the test.'));

  it('plays a whole arith episode from the form: the message, text, reasoning, tool cards, rewards and the outcome', async () => {
    const { tab, problems, foreign } = await rig.open();
    await waitForForm(tab);
    await snap(tab, 'start');
    const runId = await startRunFromForm(tab, {
      env: 'arith',
      split: 'train',
      index: 2,
      model: 'offline',
      message: 'Show your work, please.',
    });
    await tab.locator('.outcome').waitFor();
    const log = await rig.bridge.readEvents(runId);
    expect(log[0]).toMatchObject({ event: 'run.started', env: 'arith', task: { split: 'train', index: 2 } });

    const shown = await shownTranscript(tab);
    expect(shown.user).toEqual(['Show your work, please.']);
    expect(shown.text).toEqual(textByTurn(log));
    expect(shown.reasoning).toEqual(
      log.flatMap((event) => (event.event === 'reasoning.available' ? [event.text] : [])),
    );
    expect(shown.tools.map(({ name, state, chips }) => ({ name, state, chips }))).toEqual(expectedTools(log));
    expect(shown.tools.map((tool) => tool.output)).toEqual(
      log.flatMap((event) => (event.event === 'tool.completed' ? [event.output] : [])),
    );
    const last = log.at(-1)!;
    expect(last.event).toBe('run.completed');
    if (last.event === 'run.completed') {
      expect(shown.outcome).toBe(
        `Completedreward 1Turns${last.turns}Tokens${last.usage.total_tokens.toLocaleString('en-US')}Stopped becausethe episode finished`,
      );
    }
    await expect
      .poll(() => tab.locator('.run-item[aria-current="page"]').textContent(), PATIENCE)
      .toMatch(/^arith · train #2completedreward 1/);
    await snap(tab, 'completed', { fullPage: true });
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    await tab.close();
  });

  it("shows a slow tool running with a timer that moves, then the call's duration", async () => {
    const { tab, problems } = await rig.open();
    // Task 2 hides its value in archive/: the model searches again with deep: true, the slow path.
    const runId = await startRunFromForm(tab, { env: 'workspace', split: 'train', index: 2 });
    const timer = tab.locator('.tool-running .tool-timer');
    await timer.waitFor();
    const seconds = async () => Number.parseFloat(/running · ([\d.]+) s/.exec((await timer.textContent()) ?? '')![1]!);
    const first = await seconds();
    await expect.poll(seconds, PATIENCE).toBeGreaterThan(first + 0.3);
    await expect(tab.locator('.tool-running .tool-name').textContent()).resolves.toBe('search');
    await expect(tab.locator('.tool-running .tool-args').textContent()).resolves.toContain('"deep": true');
    // The window's worth at the end of the transcript: the running call above the message box and Stop.
    await tab.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    await snap(tab, 'slow-tool-running');

    await tab.locator('.outcome').waitFor();
    const log = await rig.bridge.readEvents(runId);
    expect(log.some((event) => event.event === 'tool.progress' && event.tool === 'search')).toBe(true);
    const shown = await shownTranscript(tab);
    expect(shown.tools.map(({ name, state, chips }) => ({ name, state, chips }))).toEqual(expectedTools(log));
    expect(shown.text).toEqual(textByTurn(log));
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('resumes after a reload where it was, from its last event: no text twice, none lost', async () => {
    const { tab, problems, requests } = await rig.open();
    const runId = await startRunFromForm(tab, { env: 'testenv', model: 'scripted:held', message: 'Please wait.' });
    await probe.started('reload');
    await tab.locator('.tool-running').waitFor();
    await tab.reload();
    // What the tab had is shown at once from its storage, before anything else arrives.
    await expect
      .poll(() => tab.locator('.assistant-text').allTextContents(), PATIENCE)
      .toEqual(['Waiting for the test. ']);
    await expect(tab.locator('.user-bubble').textContent()).resolves.toBe('Please wait.');
    probe.release('reload', 'Released by the test.');
    await tab.locator('.outcome').waitFor();

    const log = await rig.bridge.readEvents(runId);
    const shown = await shownTranscript(tab);
    expect(shown.text).toEqual(textByTurn(log));
    expect(shown.text).toEqual(['Waiting for the test. ']);
    expect(shown.reasoning).toEqual(['The user wants me to wait for the test.']);
    expect(shown.tools).toEqual([
      {
        name: 'wait',
        state: expectedTools(log)[0]!.state,
        output: 'Released by the test.',
        chips: ['reward 1', 'episode finished'],
      },
    ]);
    // After the reload the stream was asked for with the cursor of what the tab had shown, not from the start.
    const streams = requests.filter((request) => new URL(request.url()).pathname === `/v1/runs/${runId}/events`);
    expect(streams.length).toBeGreaterThanOrEqual(2);
    expect(await streams[0]!.headerValue('last-event-id')).toBeNull();
    const resumedAfter = Number(await streams.at(-1)!.headerValue('last-event-id'));
    const toolStarted = log.find((event) => event.event === 'tool.started')!.seq;
    // …and the tool was released only after the reload, so every event after the cursor came on that stream.
    const toolCompleted = log.find((event) => event.event === 'tool.completed')!.seq;
    expect(resumedAfter).toBeGreaterThanOrEqual(toolStarted);
    expect(resumedAfter).toBeLessThan(toolCompleted);
    // Live events after the reload were read out to screen readers.
    await expect
      .poll(() => tab.getByTestId('announcer').textContent(), PATIENCE)
      .toMatch(/wait finished after [\d.]+ m?s, reward 1\.Run completed with reward 1\.$/);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('shows the run exactly once when its event stream is cut mid-frame, resuming where it broke off', async () => {
    let streams = 0;
    const proxy = await startStreamCutProxy(rig.bridge.url, ({ method, url }) =>
      method === 'GET' && url.includes('/events') && streams++ === 0 ? { bytes: 1500 } : undefined,
    );
    try {
      // Chromium itself logs the cut stream (ERR_INCOMPLETE_CHUNKED_ENCODING); the page must log nothing.
      const { tab, problems } = await openChatPage(rig.browser, proxy.url, { allowErrorAnswers: true });
      const runId = await startRunFromForm(tab, { env: 'arith', split: 'test', index: 5 });
      await tab.locator('.outcome').waitFor();
      const log = await rig.bridge.readEvents(runId);
      const shown = await shownTranscript(tab);
      expect(shown.text).toEqual(textByTurn(log));
      expect(shown.tools.map(({ name, state, chips }) => ({ name, state, chips }))).toEqual(expectedTools(log));
      const resumed = proxy.requests.filter((request) => request.url === `/v1/runs/${runId}/events`);
      expect(resumed.length).toBeGreaterThanOrEqual(2);
      expect(resumed[0]!.lastEventId).toBeUndefined();
      // Resumed after the last event the page had read — or from the start when Chromium dropped what
      // the cut connection had buffered (an errored body discards its unread chunks): either way, once.
      const after = resumed[1]!.lastEventId;
      if (after !== undefined) expect(log.map((event) => String(event.seq))).toContain(after);
      expect(problems).toEqual([]);
      await tab.close();
    } finally {
      await proxy.close();
    }
  });

  it('lists past runs and reopens one in a new tab, replaying its log from the start', async () => {
    const { tab, problems, requests } = await rig.open();
    const item = tab.locator('.run-item', { hasText: 'arith · train #2' });
    await item.click();
    await tab.locator('.outcome').waitFor();
    const runId = /#\/runs\/(run_\w+)$/.exec(tab.url())![1]!;
    const log = await rig.bridge.readEvents(runId);
    const shown = await shownTranscript(tab);
    expect(shown.text).toEqual(textByTurn(log));
    expect(shown.tools.map(({ name, state }) => ({ name, state }))).toEqual(
      expectedTools(log).map(({ name, state }) => ({ name, state })),
    );
    const stream = requests.find((request) => new URL(request.url()).pathname === `/v1/runs/${runId}/events`)!;
    expect(await stream.headerValue('last-event-id')).toBeNull();
    const listed = await tab.locator('.run-item').allTextContents();
    expect(listed.length).toBeGreaterThanOrEqual(3);
    expect(listed.filter((text) => text.includes('completed'))).toHaveLength(listed.length);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('cancels a running run with its Stop button', async () => {
    const { tab, problems } = await rig.open();
    const runId = await startRunFromForm(tab, { env: 'arith', model: 'scripted:hang' });
    await tab.getByRole('button', { name: 'Stop' }).click();
    await tab.locator('.outcome-cancelled').waitFor();
    expect(await tab.locator('.outcome').textContent()).toBe('CancelledA client cancelled it (this page or the API).');
    expect(await tab.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    expect((await rig.bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
    await snap(tab, 'cancelled');
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('keeps the run list current: Refresh, the status of an active run polled, older runs page by page', async () => {
    const { tab, problems } = await rig.open();
    await waitForForm(tab);
    const items = tab.locator('.run-item');
    const before = await items.count();
    // Started elsewhere (another client of the same key): the list shows it on Refresh…
    const elsewhere = await rig.bridge.startRun({
      env: 'arith',
      task: { split: 'test', index: 7 },
      model: 'scripted:hang',
    });
    await tab.getByRole('button', { name: 'Refresh' }).click();
    const item = tab.locator(`.run-item[href="#/runs/${elsewhere}"]`);
    await expect.poll(() => item.textContent(), PATIENCE).toMatch(/^arith · test #7running/);
    // …and, while it is active, follows its status without being asked.
    await rig.bridge.fetch(`/v1/runs/${elsewhere}/cancel`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
    });
    await expect.poll(() => item.textContent(), { timeout: 15_000 }).toMatch(/^arith · test #7cancelled/);

    // Past 20 runs, the older ones come a page at a time.
    for (let count = before + 1; count < 21; count++)
      await rig.bridge.readEvents(await rig.bridge.startRun({ env: 'arith' }));
    await tab.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => items.count(), PATIENCE).toBe(20);
    await tab.getByRole('button', { name: 'Show older runs' }).click();
    const all = (await (await rig.bridge.fetch('/v1/runs?limit=100')).json()) as { data: unknown[] };
    expect(all.data.length).toBeGreaterThan(20);
    await expect.poll(() => items.count(), PATIENCE).toBe(all.data.length);
    expect(await tab.getByRole('button', { name: 'Show older runs' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await tab.close();
  });
});
