import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { PATIENCE, startRunFromForm, useChatPageRig } from './support/chat-page.js';

const RLO = '\u202E';

/** The time of day `epochSeconds` as the page writes it (its locale, hours and minutes). */
function clockIn(tab: Page, epochSeconds: number): Promise<string> {
  return tab.evaluate(
    `new Date(${epochSeconds * 1000}).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })`,
  ) as Promise<string>;
}

/**
 * What a person needs to judge a run, shown so they can trust it (docs/ui.md): the task the model is
 * answering, what an undecided approval comes to and when, arguments exactly as they are — a bidi
 * override or an invisible character escaped, not obeyed — model text that cannot reorder the page
 * around it, and each failure said once.
 */
describe('the chat page shows what a person needs to judge a run', () => {
  const rig = useChatPageRig(
    {},
    {
      environments: [arithEnvironment],
      providers: [
        scriptedProvider({
          computer: [
            { text: 'Let me compute it.', toolCalls: [{ name: 'calculator', arguments: '{"expression": "6 * 7"}' }] },
          ],
          tricky: [
            {
              text: `The file is ${RLO}gpj.exe, as you asked.`,
              toolCalls: [{ name: 'calculator', arguments: `{"expression": "1 + 1", "note": "${RLO}1 - 1"}` }],
            },
          ],
          divider: [{ toolCalls: [{ name: 'calculator', arguments: '{"expression": "1 / 0"}' }] }, { text: 'I stop.' }],
        }),
      ],
    },
  );

  it('shows the task the model is answering, folded at the top of the run', async () => {
    const { tab, problems } = await rig.open();
    const runId = await startRunFromForm(tab, { env: 'arith', split: 'train', index: 4, message: 'Go.' });
    await tab.locator('.outcome').waitFor(PATIENCE);
    const prompt = (await rig.bridge.readEvents(runId)).find((event) => event.event === 'prompt.available');
    expect(prompt?.event === 'prompt.available' && prompt.text).toContain('?');
    const text = prompt?.event === 'prompt.available' ? prompt.text : '';

    // The first entry of the transcript, above the person's message, folded to its first line.
    const task = tab.locator('.transcript > li').first().locator('details.task');
    expect(await task.getAttribute('open')).toBeNull();
    expect(await task.locator('summary').textContent()).toBe(`Task${text.split('\n')[0]}`);
    expect(await tab.locator('.transcript > li').nth(1).locator('.user-bubble').textContent()).toBe('Go.');
    await task.locator('summary').click();
    expect(await task.locator('.task-text').textContent()).toBe(text);
    expect(await task.locator('.task-text').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('says what the approval timeout decides, and when: deny by default, approve when the run says so', async () => {
    for (const { onTimeout, says } of [
      { onTimeout: undefined, says: 'it is denied' },
      { onTimeout: 'approve', says: 'it is approved and runs' },
    ]) {
      const runId = await rig.bridge.startRun({
        env: 'arith',
        model: 'scripted:computer',
        approval: { tools: '*', ...(onTimeout === undefined ? {} : { on_timeout: onTimeout }) },
      });
      const { tab, problems } = await rig.open({ hash: `#/runs/${runId}` });
      const question = tab.locator('.approval-question');
      await question.waitFor(PATIENCE);
      const required = (await rig.bridge.fetch(`/v1/runs/${runId}`).then((answer) => answer.json())) as {
        pending_approvals: Array<{ expires_at: number }>;
      };
      const by = await clockIn(tab, required.pending_approvals[0]!.expires_at);
      expect(await question.textContent()).toBe(
        `Run calculator? Nothing reaches the environment until you decide. If no one decides by ${by}, ${says}.`,
      );
      await tab.getByRole('button', { name: 'Stop' }).click();
      await tab.locator('.outcome-cancelled').waitFor(PATIENCE);
      expect(problems).toEqual([]);
      await tab.close();
    }
  });

  it('shows a bidi override in arguments escaped, in the card and the approval, and keeps it inside the model text that has one', async () => {
    const runId = await rig.bridge.startRun({ env: 'arith', model: 'scripted:tricky', approval: { tools: '*' } });
    const { tab, problems } = await rig.open({ hash: `#/runs/${runId}` });
    const question = tab.getByRole('group', { name: 'Approve calculator?' });
    await question.waitFor(PATIENCE);

    const args = tab.locator('.tool-args pre');
    expect(await args.textContent()).toBe('{ "expression": "1 + 1", "note": "\\u202E1 - 1" }');
    await question.getByRole('button', { name: 'Edit arguments' }).click();
    const editor = tab.getByLabel('Arguments (JSON)');
    const edited = await editor.inputValue();
    expect(edited).toContain('"\\u202E1 - 1"');
    expect(edited).not.toContain(RLO);
    // The escape is JSON's own: approved as shown, the call runs with the model's arguments.
    expect(JSON.parse(edited)).toEqual({ expression: '1 + 1', note: `${RLO}1 - 1` });
    await tab.getByRole('button', { name: 'Approve with these arguments' }).click();
    await tab.locator('.tool-done').waitFor(PATIENCE);
    expect(await args.textContent()).toBe('{ "expression": "1 + 1", "note": "\\u202E1 - 1" }');
    const log = await rig.bridge.readEvents(runId);
    expect(log.find((event) => event.event === 'tool.started')).toMatchObject({
      arguments: { expression: '1 + 1', note: `${RLO}1 - 1` },
    });

    // The model's text keeps its override, isolated: it cannot reach past the block it is in.
    const block = tab.locator('.assistant-text .md-block', { hasText: 'gpj.exe' });
    expect(await block.getAttribute('dir')).toBe('auto');
    expect(
      await block.evaluate((element) => element.ownerDocument.defaultView?.getComputedStyle(element).unicodeBidi),
    ).toBe('isolate');
    expect(await block.textContent()).toBe(`The file is ${RLO}gpj.exe, as you asked.`);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it("says a failed call's error once, not again as its output", async () => {
    const runId = await rig.bridge.startRun({ env: 'arith', model: 'scripted:divider' });
    const { tab, problems } = await rig.open({ hash: `#/runs/${runId}` });
    await tab.locator('.outcome').waitFor(PATIENCE);
    const completed = (await rig.bridge.readEvents(runId)).find((event) => event.event === 'tool.completed');
    expect(completed).toMatchObject({ error: true, output: expect.stringContaining('Division by zero') });
    const error = completed?.event === 'tool.completed' ? (completed.error_message ?? '') : '';
    const card = tab.locator('.tool-card');
    expect(await card.locator('.tool-error').allTextContents()).toEqual([error]);
    expect(await card.locator('.tool-output').count()).toBe(0);
    expect((await tab.locator('main').textContent())?.split(error).length).toBe(2);
    expect(problems).toEqual([]);
    await tab.close();
  });
});
