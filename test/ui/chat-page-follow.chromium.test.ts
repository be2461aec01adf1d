import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import type { ModelPart } from '../../src/models/model.js';
import { accessibilityViolations, PATIENCE, snap, useChatPageRig } from './support/chat-page.js';
import { drivenModel } from './support/driven-model.js';

/** Pixels of the page below the bottom of the window. */
function below(tab: Page): Promise<number> {
  return tab.evaluate(
    'document.documentElement.scrollHeight - (window.scrollY + window.innerHeight)',
  ) as Promise<number>;
}

/** Paragraphs `from` to `to` of an answer long enough to pass the window, each naming its number. */
function paragraphs(from: number, to: number): ModelPart[] {
  return Array.from({ length: to - from + 1 }, (_, at) => ({
    type: 'text-delta',
    delta: `Paragraph ${from + at}: the model goes on writing, one sentence after another, as models do.\n\n`,
  }));
}

/** Waits until the page shows paragraph `number` of the answer. */
async function shown(tab: Page, number: number): Promise<void> {
  await tab.locator('.assistant-text p', { hasText: `Paragraph ${number}:` }).waitFor(PATIENCE);
}

/** What must not move while a run streams: the column's width, the person's bubble, and nothing wider than the column. */
interface Layout {
  run: number;
  transcript: number;
  bubbleRight: number;
  /** An entry of the transcript reaches past its right edge. */
  spills: boolean;
  /** The page scrolls sideways. */
  sideways: boolean;
}

function layout(tab: Page): Promise<Layout> {
  return tab.evaluate(`(() => {
    const box = (element) => element.getBoundingClientRect();
    const transcript = box(document.querySelector('.transcript'));
    return {
      run: box(document.querySelector('.run')).width,
      transcript: transcript.width,
      bubbleRight: box(document.querySelector('.user-bubble')).right,
      spills: [...document.querySelectorAll('.transcript > li')].some((entry) => box(entry).right > transcript.right + 0.5),
      sideways: document.documentElement.scrollWidth > window.innerWidth,
    };
  })()`) as Promise<Layout>;
}

/** Whether the run's outcome is in the window, from its top to its bottom. */
function outcomeInView(tab: Page): Promise<boolean> {
  return tab.evaluate(`(() => {
    const outcome = document.querySelector('.outcome');
    if (!outcome) return false;
    const box = outcome.getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
  })()`) as Promise<boolean>;
}

/** The parts that end a model's turn without a tool call: the run completes (no chat mode). */
const LAST_WORDS: ModelPart[] = [
  { type: 'text-delta', delta: 'That is all I have to say.' },
  { type: 'usage', usage: { inputTokens: 10, outputTokens: 900 } },
  { type: 'finish', reason: 'stop' },
];

/**
 * The chat page keeps up with a run (docs/ui.md): at the bottom, the window follows the output as it
 * grows, the run's outcome included; scrolled up, it stays put and offers to jump to the latest, also
 * once the run has ended. And the page never widens: a long unbroken line wraps inside its own box,
 * while it streams as after.
 */
describe('the chat page keeps up with the run', () => {
  const writer = drivenModel('writer');
  const thinker = drivenModel('thinker');
  const finisher = drivenModel('finisher');

  const rig = useChatPageRig(
    {},
    { environments: [arithEnvironment], providers: [writer.provider, thinker.provider, finisher.provider] },
  );

  /** Starts a run of `model` asking before each call, and opens it in a window `height` pixels high (and `width` wide). */
  async function open(name: string, height: number, width?: number): Promise<{ tab: Page; problems: string[] }> {
    const runId = await rig.bridge.startRun({
      env: 'arith',
      model: name,
      input: 'Please answer at length.',
      metadata: { ui_input: 'Please answer at length.' },
      approval: { tools: '*' },
    });
    const opened = await rig.open({ hash: `#/runs/${runId}`, height, ...(width === undefined ? {} : { width }) });
    await opened.tab.locator('.run-meta .badge', { hasText: 'running' }).waitFor(PATIENCE);
    return opened;
  }

  it('follows new output while the window is at the bottom; scrolled up, stays put and offers to jump to the latest', async () => {
    const { tab, problems } = await open('writer', 700);
    const jump = tab.getByRole('button', { name: 'Jump to latest' });

    writer.push(...paragraphs(1, 40));
    await shown(tab, 40);
    expect(await tab.evaluate('document.documentElement.scrollHeight > 2 * window.innerHeight')).toBe(true);
    await expect.poll(() => below(tab), PATIENCE).toBeLessThanOrEqual(1);
    writer.push(...paragraphs(41, 50));
    await shown(tab, 50);
    await expect.poll(() => below(tab), PATIENCE).toBeLessThanOrEqual(1);
    expect(await jump.count()).toBe(0);

    // The person scrolls up to read: the window stays where they put it while the answer grows below.
    await tab.mouse.move(640, 300);
    await tab.mouse.wheel(0, -900);
    await jump.waitFor(PATIENCE);
    const reading = (await tab.evaluate('window.scrollY')) as number;
    const height = (await tab.evaluate('document.documentElement.scrollHeight')) as number;
    writer.push(...paragraphs(51, 60));
    await shown(tab, 60);
    await expect.poll(() => tab.evaluate('document.documentElement.scrollHeight'), PATIENCE).toBeGreaterThan(height);
    expect(await tab.evaluate('window.scrollY')).toBe(reading);
    expect(await jump.isVisible()).toBe(true);
    await snap(tab, 'jump-to-latest');
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(tab), `${colorScheme}: scrolled up, with Jump to latest`).toEqual([]);
    }
    await tab.emulateMedia({ colorScheme: 'light' });

    // Jumping to the latest follows again: the question of a call that waits comes into view.
    await jump.click();
    await expect.poll(() => below(tab), PATIENCE).toBeLessThanOrEqual(1);
    expect(await jump.count()).toBe(0);
    // The button is gone; the focus is on the message box beside where it was.
    expect(await tab.evaluate('document.activeElement.id')).toBe('composer-text');
    writer.push(
      { type: 'tool-call', call: { id: 'call_1', name: 'calculator', arguments: '{"expression": "6 * 7"}' } },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 500 } },
      { type: 'finish', reason: 'tool_calls' },
    );
    const question = tab.getByRole('group', { name: 'Approve calculator?' });
    await question.waitFor(PATIENCE);
    await expect.poll(() => below(tab), PATIENCE).toBeLessThanOrEqual(1);
    const box = (await question.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(700);
    expect(problems).toEqual([]);
    await tab.getByRole('button', { name: 'Stop' }).click();
    await tab.locator('.outcome-cancelled').waitFor(PATIENCE);
    await tab.close();
  });

  it('keeps the column its width while a long unbroken line streams in the reasoning, the answer and the arguments', async () => {
    const { tab, problems } = await open('thinker', 860);
    const before = await layout(tab);
    expect(before).toMatchObject({ spills: false, sideways: false });

    // Reasoning with no space to break at: its one-line preview shows under the fold while it streams.
    const opening = 'Let me look at the hash ';
    thinker.push({ type: 'reasoning-delta', delta: opening });
    for (let piece = 1; piece <= 8; piece++) {
      thinker.push({ type: 'reasoning-delta', delta: 'f00d'.repeat(30) });
      await expect
        .poll(async () => (await tab.locator('.reasoning-text').textContent())?.length, PATIENCE)
        .toBe(opening.length + 120 * piece);
      await tab.locator('.reasoning-preview').waitFor(PATIENCE);
      expect(await layout(tab)).toEqual(before);
    }
    // The answer and a call's arguments, each one long unbroken string.
    thinker.push(
      { type: 'text-delta', delta: `The hash is ${'0123456789abcdef'.repeat(40)}.` },
      { type: 'tool-call', call: { id: 'call_1', name: 'submit', arguments: `{"answer": "${'9'.repeat(600)}"}` } },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 900 } },
      { type: 'finish', reason: 'tool_calls' },
    );
    await tab.getByRole('group', { name: 'Approve submit?' }).waitFor(PATIENCE);
    expect(await layout(tab)).toEqual(before);
    expect(problems).toEqual([]);
    await tab.getByRole('button', { name: 'Stop' }).click();
    await tab.locator('.outcome-cancelled').waitFor(PATIENCE);
    await tab.close();
  });

  describe.each([
    ['a desktop window', 1280, 700],
    ['a 360 px phone', 360, 640],
  ])('when the run ends, in %s', (_, width, height) => {
    it('brings the outcome into view when the window was following', async () => {
      const { tab, problems } = await open('finisher', height, width);
      finisher.push(...paragraphs(1, 30));
      await shown(tab, 30);
      await expect.poll(() => below(tab), PATIENCE).toBeLessThanOrEqual(1);

      finisher.push(...LAST_WORDS);
      await tab.locator('.outcome-completed').waitFor(PATIENCE);
      await expect.poll(() => outcomeInView(tab), PATIENCE).toBe(true);
      await expect.poll(() => below(tab), PATIENCE).toBeLessThanOrEqual(1);
      expect(await tab.getByRole('button', { name: 'Jump to latest' }).count()).toBe(0);
      expect(problems).toEqual([]);
      await tab.close();
    });

    it('stays put when the person scrolled up, and offers to jump to the outcome', async () => {
      const { tab, problems } = await open('finisher', height, width);
      const jump = tab.getByRole('button', { name: 'Jump to latest' });
      finisher.push(...paragraphs(1, 30));
      await shown(tab, 30);
      await expect.poll(() => below(tab), PATIENCE).toBeLessThanOrEqual(1);
      await tab.mouse.move(width / 2, height / 2);
      await tab.mouse.wheel(0, -900);
      await jump.waitFor(PATIENCE);
      const reading = (await tab.evaluate('window.scrollY')) as number;

      finisher.push(...LAST_WORDS);
      await tab.locator('.outcome-completed').waitFor(PATIENCE);
      // The run is over, and the person still reads where they were: the button takes them to how it ended.
      await jump.waitFor(PATIENCE);
      expect(await tab.evaluate('window.scrollY')).toBe(reading);
      expect(await outcomeInView(tab)).toBe(false);
      for (const colorScheme of ['light', 'dark'] as const) {
        await tab.emulateMedia({ colorScheme });
        expect(await accessibilityViolations(tab), `${colorScheme}: ended, with Jump to latest`).toEqual([]);
      }
      await jump.click();
      await expect.poll(() => outcomeInView(tab), PATIENCE).toBe(true);
      await expect.poll(() => jump.count(), PATIENCE).toBe(0);
      // The button is gone; the focus is on how the run ended.
      expect(await tab.evaluate('document.activeElement.id')).toBe('outcome-title');
      expect(problems).toEqual([]);
      await tab.close();
    });
  });
});
