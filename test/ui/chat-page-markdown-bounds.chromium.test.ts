import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import type { ModelPart } from '../../src/models/model.js';
import { cutIntoDeltas } from '../support/long-markdown.js';
import { scriptedProvider, singleModelProvider } from '../support/scripted-model.js';
import { accessibilityViolations, openChatPage, PATIENCE, useChatPageRig } from './support/chat-page.js';

/** The words that end every hostile block: shown, the whole block is. */
const DEEP_END = 'the deep end';

/**
 * Markdown a model may write to break the page, each about as large as the issue that found it: nesting
 * that overflows marked's stack, and emphasis whose cost grows with the square of its size (300 KB of
 * `_a` froze a tab for 39 s, on every reload).
 */
const HOSTILE: Record<string, string> = {
  quotes: `${'>'.repeat(3000)} ${DEEP_END}`,
  bullets: `${'- '.repeat(2000)}${DEEP_END}`,
  // Tabs, not spaces: the scripted model streams a word (or a space) a delta.
  indents: `${Array.from({ length: 400 }, (_, depth) => `${'\t'.repeat(depth)}- level ${depth}`).join('\n')}\n${'\t'.repeat(400)}- ${DEEP_END}`,
  underscores: `${'_a'.repeat(150_000)} ${DEEP_END}`,
  stars: `${'*a'.repeat(150_000)} ${DEEP_END}`,
};

/** A turn that writes `hostile` between two ordinary paragraphs, then asks to use the calculator. */
function hostileTurn(hostile: string) {
  return {
    text: `Before it, **an ordinary paragraph**.\n\n${hostile}\n\nAfter it, *another* one.`,
    toolCalls: [{ name: 'calculator', arguments: '{"expression": "6 * 7"}' }],
  };
}

/** Each case: what it is called, and the model that writes it. */
const CASES: Array<[string, string]> = [
  ...Object.keys(HOSTILE).map((name): [string, string] => [name, `scripted:${name}`]),
  // As a model streams it, in 1,000 deltas: the page draws it again as it grows.
  ['streamed underscores', 'streamer'],
];

/** The underscores turn, streamed in 1,000 deltas; its next turn ends the run. */
async function* streamer({ messages }: { messages: Array<{ role: string }> }): AsyncGenerator<ModelPart> {
  if (messages.some((message) => message.role === 'assistant')) {
    yield { type: 'text-delta', delta: 'Done.' };
    yield { type: 'finish', reason: 'stop' };
    return;
  }
  const turn = hostileTurn(HOSTILE.underscores!);
  for (const delta of cutIntoDeltas(turn.text, 1000)) yield { type: 'text-delta', delta };
  yield { type: 'tool-call', call: { id: 'call_1', ...turn.toolCalls[0]! } };
  yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 100_000 } };
  yield { type: 'finish', reason: 'tool_calls' };
}

/** Whether the block the page shows as written ends with the hostile block's last words. */
function plainShowsAll(tab: Page): Promise<boolean> {
  return tab
    .locator('.assistant-text .md-plain pre', { hasText: DEEP_END })
    .evaluate((element, end) => (element.textContent ?? '').trimEnd().endsWith(end), DEEP_END);
}

/**
 * What a model writes cannot hide a call that waits for a person, nor freeze the page (docs/ui.md,
 * Markdown): a block too deep, too large or too slow to draw is shown as written, marked so, and the
 * blocks around it are drawn; the question of the waiting call shows and its buttons work, also after a
 * reload — the run approves the call by itself when no one decides, so a hidden question would run it unseen.
 */
describe('the chat page bounds the Markdown it draws', () => {
  const rig = useChatPageRig(
    {},
    {
      environments: [arithEnvironment],
      providers: [
        scriptedProvider(
          Object.fromEntries(Object.entries(HOSTILE).map(([name, text]) => [name, [hostileTurn(text)]])),
        ),
        singleModelProvider('streamer', streamer),
      ],
    },
  );

  it.each(CASES)(
    'shows the question of a waiting call, and the %s block as written, before and after a reload',
    async (_, model) => {
      const runId = await rig.bridge.startRun({
        env: 'arith',
        model,
        approval: { tools: '*', on_timeout: 'approve' },
      });
      const { tab, problems } = await rig.open({ hash: `#/runs/${runId}` });
      const question = tab.getByRole('group', { name: 'Approve calculator?' });
      const answer = tab.locator('.assistant-text');
      for (const opened of ['opened', 'reloaded']) {
        await question.waitFor(PATIENCE);
        await answer.locator('.md-plain').waitFor(PATIENCE);
        expect(await answer.locator('.md-plain-note').textContent(), opened).toMatch(/^Shown as written: /);
        expect(await plainShowsAll(tab), opened).toBe(true);
        // Only that block: the paragraphs around it are drawn.
        await answer.locator('strong', { hasText: 'an ordinary paragraph' }).waitFor(PATIENCE);
        await answer.locator('em', { hasText: 'another' }).waitFor(PATIENCE);
        expect(await tab.locator('.run-meta .badge').textContent(), opened).toBe('needs a decision');
        if (opened === 'opened') await tab.reload();
      }

      await question.getByRole('button', { name: 'Approve' }).click();
      await tab.locator('.tool-verdict', { hasText: 'Approved by a person' }).waitFor(PATIENCE);
      await tab.locator('.outcome-completed').waitFor(PATIENCE);
      const log = await rig.bridge.readEvents(runId);
      expect(log.find((event) => event.event === 'tool.approval_resolved')).toMatchObject({ by: 'client' });
      expect(problems).toEqual([]);
      await tab.close();
    },
  );

  it('marks a block shown as written in words and colours every reader can make out', async () => {
    const runId = await rig.bridge.startRun({ env: 'arith', model: 'scripted:quotes', approval: { tools: '*' } });
    const { tab, problems } = await rig.open({ hash: `#/runs/${runId}` });
    await tab.locator('.assistant-text .md-plain').waitFor(PATIENCE);
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(tab), colorScheme).toEqual([]);
    }
    await tab.getByRole('button', { name: 'Stop' }).click();
    await tab.locator('.outcome-cancelled').waitFor(PATIENCE);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('shows a large text as written, and the question, when no worker can run on the page', async () => {
    const runId = await rig.bridge.startRun({ env: 'arith', model: 'scripted:underscores', approval: { tools: '*' } });
    const { tab, problems } = await openChatPage(rig.browser, rig.bridge.url, {
      hash: `#/runs/${runId}`,
      allowErrorAnswers: true,
    });
    await tab.route('**/ui/markdown-worker.js', (route) => route.fulfill({ status: 404 }));
    await tab.reload();
    const answer = tab.locator('.assistant-text');
    await tab.getByRole('group', { name: 'Approve calculator?' }).waitFor(PATIENCE);
    await expect
      .poll(() => answer.locator('.md-plain-note').allTextContents(), PATIENCE)
      .toEqual(Array(3).fill('Shown as written: this browser could not draw it as Markdown.'));
    expect(await plainShowsAll(tab)).toBe(true);
    await tab.getByRole('button', { name: 'Stop' }).click();
    await tab.locator('.outcome-cancelled').waitFor(PATIENCE);
    expect(problems).toEqual([]);
    await tab.close();
  });
});
