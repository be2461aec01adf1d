import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import { createWorkspaceEnvironment } from '../../adapters/environments/workspace/workspace-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import {
  accessibilityViolations,
  PATIENCE,
  snap,
  startRunFromForm,
  useChatPageRig,
  waitForForm,
} from './support/chat-page.js';

/** What has the focus: its id, or its tag and text. */
function focused(tab: Page): Promise<string> {
  return tab.evaluate(
    `(() => { const element = document.activeElement; return element.id || element.tagName.toLowerCase() + ':' + element.textContent.trim(); })()`,
  ) as Promise<string>;
}

/** Presses Tab until the focus is on `target` (as {@link focused} names it); fails when it never gets there. */
async function tabTo(tab: Page, target: string | RegExp, presses = 60): Promise<void> {
  const seen: string[] = [];
  for (let count = 0; count < presses; count++) {
    await tab.keyboard.press('Tab');
    const now = await focused(tab);
    seen.push(now);
    if (typeof target === 'string' ? now === target : target.test(now)) return;
  }
  throw new Error(`Tab never reached ${target}; the focus went through: ${seen.join(' → ')}`);
}

/** True when the page is no wider than the window: nothing to scroll sideways. */
function fitsWidth(tab: Page): Promise<boolean> {
  return tab.evaluate('document.documentElement.scrollWidth <= window.innerWidth') as Promise<boolean>;
}

/**
 * The chat page for everyone: used with the keyboard alone from start to end, on a phone-width
 * screen, in light and dark colours — with axe-core's WCAG 2.1 A and AA rules (labels, names,
 * contrast, ARIA) passing in each state, and no console error.
 */
describe('the chat page is accessible', () => {
  const rig = useChatPageRig(
    {},
    {
      environments: [arithEnvironment, createWorkspaceEnvironment({ slowToolMs: 20 })],
      providers: [scriptedProvider({ hang: [{ hang: true }] })],
    },
  );

  it('works with the keyboard alone: start, cancel, start again, expand an output and reasoning, reopen a run', async () => {
    const { tab, problems } = await rig.open();
    await waitForForm(tab);
    // The first stop is the skip link, which takes the focus past the bar and the run list.
    await tab.keyboard.press('Tab');
    expect(await focused(tab)).toBe('button:Skip to content');
    await tab.keyboard.press('Enter');
    expect(await focused(tab)).toBe('main');

    await tabTo(tab, 'env');
    await tabTo(tab, 'index');
    await tab.keyboard.press('Control+A');
    await tab.keyboard.type('3');
    await tabTo(tab, 'model');
    await tab.keyboard.type('scripted:hang');
    expect(await tab.getByLabel('Model', { exact: true }).inputValue()).toBe('scripted:hang');
    await tabTo(tab, 'message');
    await tab.keyboard.type('Take your time.');
    await tab.keyboard.press('Control+Enter');
    await tab.waitForURL(/#\/runs\/run_\w+$/);
    // Opening the run moves the focus to its heading, where a screen reader starts reading.
    await expect.poll(() => focused(tab), PATIENCE).toBe('run-title');
    await tabTo(tab, 'button:Stop');
    await tab.keyboard.press('Enter');
    await tab.locator('.outcome-cancelled').waitFor();
    const cancelled = /#\/runs\/(run_\w+)$/.exec(tab.url())![1]!;
    expect((await rig.bridge.readEvents(cancelled))[0]).toMatchObject({ task: { split: 'train', index: 3 } });

    // A new run, through the bar's link; the form's heading takes the focus.
    await tabTo(tab, 'a:New run');
    await tab.keyboard.press('Enter');
    await expect.poll(() => focused(tab), PATIENCE).toBe('start-title');
    await tabTo(tab, 'env');
    await tab.keyboard.type('workspace');
    await tabTo(tab, 'button:Start run');
    await tab.keyboard.press('Enter');
    await tab.locator('.outcome-completed').waitFor();
    // list_files lists more files than the card shows at first.
    await tabTo(tab, /^button:Show all \d+ lines$/);
    const expander = tab.locator('.tool-output button').first();
    expect(await expander.getAttribute('aria-expanded')).toBe('false');
    await tab.keyboard.press('Enter');
    expect(await expander.getAttribute('aria-expanded')).toBe('true');
    expect(await focused(tab)).toBe('button:Show less');
    await tab.keyboard.press('Shift+Tab');
    await tabTo(tab, /^summary:Reasoning/);
    await tab.keyboard.press('Enter');
    expect(await tab.evaluate('document.activeElement.parentElement.open')).toBe(true);

    // Back to the cancelled run through the run list.
    await tab.keyboard.press('Control+Home');
    await tabTo(tab, /^a:arith · train #3cancelled/);
    await tab.keyboard.press('Enter');
    await tab.waitForURL(new RegExp(`#/runs/${cancelled}$`));
    await tab.locator('.outcome-cancelled').waitFor();
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('fits a 360 px wide phone screen, with the run list behind a button', async () => {
    const { tab, problems } = await rig.open({ width: 360, height: 740 });
    await waitForForm(tab);
    expect(await fitsWidth(tab)).toBe(true);
    expect(await tab.locator('#run-list').isVisible()).toBe(false);
    await snap(tab, 'phone-start', { fullPage: true });
    await startRunFromForm(tab, { env: 'workspace', split: 'train', index: 2, message: 'Find it, please.' });
    await tab.locator('.outcome-completed').waitFor();
    await tab.locator('.tool-output button').first().click();
    expect(await fitsWidth(tab)).toBe(true);
    expect(await accessibilityViolations(tab)).toEqual([]);
    await snap(tab, 'phone-run', { fullPage: true });
    const toggle = tab.getByRole('button', { name: 'Runs', exact: true });
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await tab.locator('#run-list').waitFor();
    expect(await fitsWidth(tab)).toBe(true);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('passes the WCAG 2.1 A and AA checks in each state, in light and dark colours', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const { tab, problems } = await rig.open();
      await tab.emulateMedia({ colorScheme });
      await waitForForm(tab);
      expect(await accessibilityViolations(tab), `${colorScheme}: the start form`).toEqual([]);
      await startRunFromForm(tab, { env: 'workspace', split: 'train', index: 2, message: 'Find it.' });
      await tab.locator('.outcome-completed').waitFor();
      await tab.locator('.reasoning summary').first().click();
      await tab.locator('.task summary').click();
      expect(await accessibilityViolations(tab), `${colorScheme}: a completed run, its task open`).toEqual([]);
      if (colorScheme === 'dark') await snap(tab, 'dark', { fullPage: true });
      await startRunFromForm(await newForm(tab), { env: 'arith', model: 'scripted:hang' });
      await tab.getByRole('button', { name: 'Stop' }).waitFor();
      expect(await accessibilityViolations(tab), `${colorScheme}: a running run`).toEqual([]);
      await tab.getByRole('button', { name: 'Stop' }).click();
      await tab.locator('.outcome-cancelled').waitFor();
      expect(await accessibilityViolations(tab), `${colorScheme}: a cancelled run`).toEqual([]);
      expect(problems).toEqual([]);
      await tab.close();
    }
  });

  it('has an accessibility check that fails on what it should catch: an unlabelled field, text too faint to read', async () => {
    const { tab } = await rig.open();
    await waitForForm(tab);
    await tab.evaluate(`(() => {
      const form = document.querySelector('form');
      form.append(document.createElement('input'));
      const faint = document.createElement('p');
      faint.textContent = 'faint text';
      faint.style.color = '#d0d0d0';
      form.append(faint);
    })()`);
    const violations = await accessibilityViolations(tab);
    expect(violations.map((violation) => violation.split(':')[0])).toEqual(
      expect.arrayContaining(['label', 'color-contrast']),
    );
    await tab.close();
  });

  it('reads a live run out in a polite live region, and marks the page up for assistive technology', async () => {
    const { tab, problems } = await rig.open();
    const live = tab.getByTestId('announcer');
    expect(await live.getAttribute('aria-live')).toBe('polite');
    expect(await tab.locator('html').getAttribute('lang')).toBe('en');
    expect(await tab.getByRole('navigation', { name: 'Runs' }).count()).toBe(1);
    expect(await tab.getByRole('main').count()).toBe(1);
    const runId = await startRunFromForm(tab, { env: 'arith', model: 'scripted:hang' });
    await tab.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => live.textContent(), PATIENCE).toContain('Run cancelled.');
    expect(await tab.getByRole('list', { name: 'Transcript' }).count()).toBe(1);
    expect((await rig.bridge.readEvents(runId)).at(-1)?.event).toBe('run.cancelled');
    expect(problems).toEqual([]);
    await tab.close();
  });
});

/** Goes to the start form through the bar's link, as a person would. */
async function newForm(tab: Page): Promise<Page> {
  await tab.getByRole('link', { name: 'New run' }).click();
  return tab;
}
