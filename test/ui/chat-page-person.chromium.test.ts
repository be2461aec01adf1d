import { describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { PATIENCE, shownTranscript, snap, startRunFromForm, useChatPageRig } from './support/chat-page.js';

/**
 * A person in the loop on the chat page (docs/ui.md): chat mode — on by default — where the person
 * answers the model in the message box and the episode goes on; approval questions answered in one
 * tab and gone from every other, with edited arguments and a denial's reason shown to all.
 */
describe('the chat page with a person in the loop', () => {
  const rig = useChatPageRig(
    {},
    {
      environments: [arithEnvironment],
      providers: [
        scriptedProvider({
          asker: [
            { text: 'Before I start: should I check my work with the calculator?' },
            { toolCalls: [{ name: 'submit', arguments: '{"answer": 0}' }] },
          ],
          gated: [
            { text: 'Let me compute it.', toolCalls: [{ name: 'calculator', arguments: '{"expression": "6 * 7"}' }] },
            { toolCalls: [{ name: 'submit', arguments: '{"answer": 42}' }] },
            { text: 'The submission was refused, so I stop here.' },
          ],
        }),
      ],
    },
  );

  it('chat mode: the model asks, the person answers in the message box, and the episode plays to its end', async () => {
    const { tab, problems, foreign } = await rig.open();
    const runId = await startRunFromForm(tab, { env: 'arith', model: 'scripted:asker' });

    await tab.locator('.run-meta .badge', { hasText: 'your turn' }).waitFor(PATIENCE);
    const box = tab.getByLabel('Your turn: the model waits for your message');
    await expect
      .poll(() => box.evaluate((element) => element === element.ownerDocument.activeElement), PATIENCE)
      .toBe(true);
    await box.fill('No need. Submit 0.');
    await box.press('Enter');

    await tab.locator('.outcome').waitFor(PATIENCE);
    const shown = await shownTranscript(tab);
    expect(shown.user).toEqual(['No need. Submit 0.']);
    expect(shown.text).toEqual(['Before I start: should I check my work with the calculator?']);
    expect(shown.tools.map(({ name, state }) => [name, state.split(' ·')[0]])).toEqual([['submit', 'done']]);
    expect(shown.outcome).toContain('Completed');
    // The message box goes with the run's end.
    expect(await tab.locator('.composer').count()).toBe(0);

    // What the page showed is what the run's log holds: the person's message, read in turn 2.
    const log = await rig.bridge.readEvents(runId);
    expect(log.filter((event) => event.event === 'message.received')).toEqual([
      expect.objectContaining({ content: 'No need. Submit 0.', turn: 2 }),
    ]);
    expect(log.at(-1)).toMatchObject({ event: 'run.completed', finished: true });
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
  });

  it("chat mode with the offline model: denied its calculator twice, it answers in words and waits for the person's reply", async () => {
    // How anyone can see this screen (docs/ui.md): the offline model that every bridge has, no other.
    const { tab, problems } = await rig.open();
    await startRunFromForm(tab, { env: 'arith', split: 'train', index: 2, model: 'offline', askFirst: true });
    for (const reason of ['Work it out without the calculator.', 'Not this way either.']) {
      const question = tab.getByRole('group', { name: 'Approve calculator?' });
      await question.waitFor(PATIENCE);
      await question.getByRole('button', { name: 'Deny' }).click();
      await tab.getByLabel('Why not?').fill(reason);
      await tab.getByRole('button', { name: 'Deny the call' }).click();
      await tab.locator('.tool-verdict', { hasText: reason }).waitFor(PATIENCE);
    }
    await tab.locator('.run-meta .badge', { hasText: 'your turn' }).waitFor(PATIENCE);
    const box = tab.getByLabel('Your turn: the model waits for your message');
    await expect
      .poll(() => box.evaluate((element) => element === element.ownerDocument.activeElement), PATIENCE)
      .toBe(true);
    expect((await shownTranscript(tab)).text.at(-1)).toMatch(/^I could not finish the calculation: /);
    await snap(tab, 'chat-your-turn');
    await tab.getByRole('button', { name: 'Stop' }).click();
    await tab.locator('.outcome-cancelled').waitFor(PATIENCE);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('an approval decided in one tab is gone from the other; edited arguments and a denial reason show in both', async () => {
    const first = await rig.open();
    const runId = await startRunFromForm(first.tab, {
      env: 'arith',
      model: 'scripted:gated',
      askFirst: true,
      chat: false,
    });
    const second = await rig.open({ hash: `#/runs/${runId}` });
    const question = (tab: typeof first.tab) => tab.getByRole('group', { name: 'Approve calculator?' });

    for (const { tab } of [first, second]) {
      await question(tab).waitFor(PATIENCE);
      await tab.locator('.run-meta .badge', { hasText: 'needs a decision' }).waitFor(PATIENCE);
    }
    await snap(first.tab, 'approval');

    // The first tab approves with its own arguments.
    await question(first.tab).getByRole('button', { name: 'Edit arguments' }).click();
    const editor = first.tab.getByLabel('Arguments (JSON)');
    expect(JSON.parse(await editor.inputValue())).toEqual({ expression: '6 * 7' });
    await editor.fill('{"expression": "6 * 8"}');
    await first.tab.getByRole('button', { name: 'Approve with these arguments' }).click();

    // Gone from both tabs; both say what was decided, and the call ran with the edit.
    for (const { tab } of [first, second]) {
      await expect.poll(() => question(tab).count(), PATIENCE).toBe(0);
      await tab.locator('.tool-verdict', { hasText: 'Approved by a person, with edited arguments' }).waitFor(PATIENCE);
      await tab.locator('.tool-output pre', { hasText: '48' }).waitFor(PATIENCE);
    }

    // The second tab denies the submission, with a reason.
    const submitQuestion = (tab: typeof first.tab) => tab.getByRole('group', { name: 'Approve submit?' });
    await submitQuestion(second.tab).waitFor(PATIENCE);
    await submitQuestion(second.tab).getByRole('button', { name: 'Deny' }).click();
    await second.tab.getByLabel('Why not?').fill('Check it twice first.');
    await second.tab.getByRole('button', { name: 'Deny the call' }).click();

    for (const { tab } of [first, second]) {
      await expect.poll(() => submitQuestion(tab).count(), PATIENCE).toBe(0);
      await tab.locator('.tool-verdict', { hasText: 'Denied by a person: Check it twice first.' }).waitFor(PATIENCE);
      await tab.locator('.outcome').waitFor(PATIENCE);
      const shown = await shownTranscript(tab);
      expect(shown.tools.map(({ name, state }) => [name, state])).toEqual([
        ['calculator', expect.stringMatching(/^done · /)],
        ['submit', 'denied: not run'],
      ]);
    }
    const log = await rig.bridge.readEvents(runId);
    expect(log.filter((event) => event.event === 'tool.approval_resolved')).toEqual([
      expect.objectContaining({ tool: 'calculator', decision: 'approve', edited: true, by: 'client' }),
      expect.objectContaining({ tool: 'submit', decision: 'deny', reason: 'Check it twice first.', by: 'client' }),
    ]);
    for (const { problems, foreign } of [first, second]) {
      expect(problems).toEqual([]);
      expect(foreign).toEqual([]);
    }
  });
});
