import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startStreamCutProxy } from '../support/stream-cut-proxy.js';
import {
  accessibilityViolations,
  openChatPage,
  PATIENCE,
  snap,
  startRunFromForm,
  useChatPageRig,
} from './support/chat-page.js';

/** Page script: the run's status as the heading shows it, and as its item in the run list does. */
const READ_STATUSES = `({
  heading: document.querySelector('.run-meta .badge')?.textContent ?? null,
  list: document.querySelector('.run-item[aria-current="page"] .badge')?.textContent ?? null,
})`;

interface Statuses {
  heading: string | null;
  list: string | null;
}

function statuses(tab: Page): Promise<Statuses> {
  return tab.evaluate(READ_STATUSES) as Promise<Statuses>;
}

/**
 * Records, at every frame the page paints, the heading's status and the run list's: what a person
 * sees at each moment. Read back with {@link paintedStatuses}.
 */
async function watchStatuses(tab: Page): Promise<void> {
  await tab.evaluate(`(() => {
    window.paintedStatuses = [];
    const read = () => {
      const now = ${READ_STATUSES};
      const last = window.paintedStatuses.at(-1);
      if (!last || last.heading !== now.heading || last.list !== now.list) window.paintedStatuses.push(now);
      requestAnimationFrame(read);
    };
    requestAnimationFrame(read);
  })()`);
}

function paintedStatuses(tab: Page): Promise<Statuses[]> {
  return tab.evaluate('window.paintedStatuses') as Promise<Statuses[]>;
}

/**
 * The chat page is honest about what it cannot know (docs/ui.md): once the bridge stops answering,
 * the heading and the run list say the connection is lost at once, not the run's last status; the
 * page reconnects by itself (or when asked); and the run list's badge shows what the heading shows
 * at every frame, not what it last polled.
 */
describe('the chat page and its connection to the bridge', () => {
  const rig = useChatPageRig(
    {},
    {
      environments: [arithEnvironment],
      providers: [
        scriptedProvider({
          asker: [
            { text: 'Should I check my work with the calculator?' },
            { toolCalls: [{ name: 'submit', arguments: '{"answer": 0}' }] },
          ],
        }),
      ],
    },
  );

  it('says at once, in the heading and the run list, that the connection is lost when the bridge stops answering, and follows the run again once it answers', async () => {
    // The bridge behind a proxy the test can take down: cut what it streams, refuse what comes next.
    let down = false;
    const proxy = await startStreamCutProxy(rig.bridge.url, () => (down ? { reset: true } : undefined));
    try {
      const { tab, problems } = await openChatPage(rig.browser, proxy.url, { allowErrorAnswers: true });
      await watchStatuses(tab);
      await startRunFromForm(tab, { env: 'arith', model: 'scripted:asker' });
      await tab.locator('.run-meta .badge', { hasText: 'your turn' }).waitFor(PATIENCE);
      expect(await statuses(tab)).toEqual({ heading: 'your turn', list: 'your turn' });

      down = true;
      expect(proxy.dropOpenResponses()).toBeGreaterThan(0);
      await tab.locator('.run-meta .badge', { hasText: 'connection lost' }).waitFor(PATIENCE);
      expect(await statuses(tab)).toEqual({ heading: 'connection lost', list: 'connection lost' });
      const alert = tab.getByRole('alert');
      expect(await alert.textContent()).toMatch(/The page keeps trying to reconnect\.Reconnect now$/);
      // The page cannot know whose turn it is: the message box no longer says it is the person's.
      expect(await tab.getByLabel('Your turn: the model waits for your message').count()).toBe(0);
      await snap(tab, 'connection-lost');
      for (const colorScheme of ['light', 'dark'] as const) {
        await tab.emulateMedia({ colorScheme });
        expect(await accessibilityViolations(tab), `${colorScheme}: the connection lost`).toEqual([]);
      }
      await tab.emulateMedia({ colorScheme: 'light' });

      down = false;
      // The page keeps retrying by itself, so it may follow the run again before the click lands: the
      // button is gone then, and an unbounded click would wait for it until the test times out.
      const clicked = tab
        .getByRole('button', { name: 'Reconnect now' })
        .click(PATIENCE)
        .catch(() => undefined);
      await tab.locator('.run-meta .badge', { hasText: 'your turn' }).waitFor(PATIENCE);
      await clicked;
      expect(await statuses(tab)).toEqual({ heading: 'your turn', list: 'your turn' });
      expect(await alert.count()).toBe(0);

      const box = tab.getByLabel('Your turn: the model waits for your message');
      await box.fill('No need. Submit 0.');
      await box.press('Enter');
      await tab.locator('.outcome-completed').waitFor(PATIENCE);
      await expect.poll(() => statuses(tab), PATIENCE).toEqual({ heading: 'completed', list: 'completed' });

      // At every frame painted while the run was listed, the list said what the heading said.
      const painted = (await paintedStatuses(tab)).filter(({ heading, list }) => heading !== null && list !== null);
      expect(painted.map(({ heading }) => heading)).toEqual(
        expect.arrayContaining(['your turn', 'connection lost', 'completed']),
      );
      expect(painted.filter(({ heading, list }) => heading !== list)).toEqual([]);
      expect(problems).toEqual([]);
      await tab.close();
    } finally {
      await proxy.close();
    }
  });
});
