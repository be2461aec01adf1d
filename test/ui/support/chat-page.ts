import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Page, Request } from 'playwright-core';
import { expect } from 'vitest';
import { type LaunchedChromium, launchChromium } from '../../support/launch-chromium.js';
import { startTestBridge, type TestBridge } from '../../support/start-test-bridge.js';
import { useStarted } from '../../support/use-started.js';
import { buildPage } from './build-page.js';

/**
 * How long a test waits for the page to show what it waits for: the page and the bridge share two
 * busy cores with the rest of the suite, so a moment in a quiet run can be seconds in a loaded one.
 */
export const PATIENCE = { timeout: 10_000 } as const;

/** A bridge serving a fresh build of the chat page, and Chromium to open it in. */
export interface ChatPageRig {
  bridge: TestBridge;
  /** The folder of the build, for more bridges serving the same page. */
  uiDir: string;
  browser: LaunchedChromium;
  /** Opens the chat page of the rig's bridge in a new tab, as {@link openChatPage} does. */
  open(options?: OpenChatPageOptions): Promise<ChatTab>;
  /** Closes the browser, shuts the bridge down and removes the build. */
  stop(): Promise<void>;
}

/**
 * Builds the page from the current sources into a temporary folder, starts a bridge serving it
 * (`env` and `options` as {@link startTestBridge} takes them) and launches Chromium.
 */
export async function startChatPageRig(
  env: Record<string, string> = {},
  options: Parameters<typeof startTestBridge>[1] = {},
): Promise<ChatPageRig> {
  const page = await buildPage();
  const stops: Array<() => Promise<void>> = [() => page.remove()];
  const stop = async () => {
    for (const step of stops.splice(0).reverse()) await step();
  };
  try {
    const bridge = await startTestBridge(env, { ...options, uiDir: page.dir });
    stops.push(() => bridge.shutdown());
    const browser = await launchChromium();
    stops.push(() => browser.close());
    return { bridge, uiDir: page.dir, browser, open: (options) => openChatPage(browser, bridge.url, options), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

type RigOptions = Parameters<typeof startChatPageRig>[1];

/** A value, or a function that makes it when it is needed. */
type Later<T> = T | (() => T);

const made = <T>(value: Later<T>): T => (typeof value === 'function' ? (value as () => T)() : value);

/**
 * Starts a {@link ChatPageRig} before the tests of the enclosing `describe` and stops it after them;
 * what it returns stands for the rig ({@link useStarted}). `env` and `options` may be functions, called
 * in that `beforeAll`, when they are made of what an earlier `beforeAll` started (a server the page
 * must not call, a receiver of traces).
 */
export function useChatPageRig(env: Later<Record<string, string>> = {}, options: Later<RigOptions> = {}): ChatPageRig {
  return useStarted(
    'the chat page rig',
    () => startChatPageRig(made(env), made(options)),
    (rig) => rig.stop(),
  );
}

/** One open tab of the chat page and what it did. */
export interface ChatTab {
  tab: Page;
  /** Uncaught exceptions and console errors of the page. */
  problems: string[];
  /** Every request the page sent, in order. */
  requests: Request[];
  /** Requests to anywhere but the bridge that served the page: there must be none. */
  foreign: string[];
}

/** Where {@link openChatPage} opens the page, in a window of what size, and what errors it lets pass. */
export interface OpenChatPageOptions {
  hash?: string;
  width?: number;
  height?: number;
  allowErrorAnswers?: boolean;
}

/**
 * Opens the chat page of the bridge at `origin` (plus `hash`) in a new tab of `browser`, sized
 * `width`×`height`, recording console errors, uncaught exceptions and every request it sends.
 * Chromium logs a console error of its own ("Failed to load resource") for every answer with an error
 * status and every refused connection; tests of those pass `allowErrorAnswers`, which leaves out
 * those lines, and only those.
 */
export async function openChatPage(
  browser: LaunchedChromium,
  origin: string,
  options: OpenChatPageOptions = {},
): Promise<ChatTab> {
  const tab = await browser.context.newPage();
  await tab.setViewportSize({ width: options.width ?? 1280, height: options.height ?? 860 });
  const opened: ChatTab = { tab, problems: [], requests: [], foreign: [] };
  tab.on('console', (message) => {
    if (message.type() !== 'error') return;
    if (options.allowErrorAnswers && /^Failed to load resource: /.test(message.text())) return;
    opened.problems.push(message.text());
  });
  tab.on('pageerror', (error) => opened.problems.push(`uncaught: ${error.message}`));
  tab.on('request', (request) => {
    opened.requests.push(request);
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:')) opened.foreign.push(url);
  });
  await tab.goto(`${origin}/${options.hash ?? ''}`);
  return opened;
}

/** Waits until the start form has its environments and models, so a choice can be made. */
export async function waitForForm(tab: Page): Promise<void> {
  const start = tab.getByRole('button', { name: 'Start run' });
  await start.waitFor();
  // Polled from here: a function polled in the page would be an eval, which the page's CSP forbids.
  await expect.poll(() => start.isEnabled(), PATIENCE).toBe(true);
}

/**
 * Fills the start form — environment, task, model, message, chat mode (left as it is unless given),
 * asking before each tool call — and starts the run; resolves to the run's id, read from the URL the
 * page moved to.
 */
export async function startRunFromForm(
  tab: Page,
  choice: {
    env: string;
    split?: string;
    index?: number;
    model?: string;
    message?: string;
    chat?: boolean;
    askFirst?: boolean;
  },
): Promise<string> {
  await waitForForm(tab);
  await tab.getByLabel('Environment').selectOption(choice.env);
  if (choice.split !== undefined) await tab.getByLabel('Split').selectOption(choice.split);
  if (choice.index !== undefined) await tab.getByLabel('Index').fill(String(choice.index));
  if (choice.model !== undefined) await tab.getByLabel('Model', { exact: true }).selectOption(choice.model);
  if (choice.message !== undefined) await tab.getByLabel('Message').fill(choice.message);
  if (choice.chat !== undefined) await tab.getByLabel('Chat mode').setChecked(choice.chat);
  if (choice.askFirst !== undefined) await tab.getByLabel('Ask me before each tool call').setChecked(choice.askFirst);
  await tab.getByRole('button', { name: 'Start run' }).click();
  await tab.waitForURL(/#\/runs\/run_\w+$/);
  return /#\/runs\/(run_\w+)$/.exec(tab.url())![1]!;
}

/** What the page shows of a run, as {@link shownTranscript} reads it. */
export interface ShownTranscript {
  user: string[];
  text: string[];
  reasoning: string[];
  tools: Array<{ name: string; state: string; output: string | null; chips: string[] }>;
  outcome: string | null;
}

/**
 * What the page shows of a run: the texts of each kind of element, in page order, once every text is
 * drawn (a long or complex one is drawn in the page's worker, and marked busy until it is).
 */
export async function shownTranscript(tab: Page): Promise<ShownTranscript> {
  await expect.poll(() => tab.locator('.markdown[aria-busy="true"]').count(), PATIENCE).toBe(0);
  return (await tab.evaluate(`(() => {
    const texts = (selector, root = document) => [...root.querySelectorAll(selector)].map((element) => element.textContent);
    return {
      user: texts('.user-bubble'),
      text: texts('.assistant-text'),
      reasoning: texts('.reasoning-text'),
      tools: [...document.querySelectorAll('.tool-card')].map((card) => ({
        name: card.querySelector('.tool-name').textContent,
        state: card.querySelector('.tool-timer').textContent,
        output: card.querySelector('.tool-output pre')?.textContent ?? null,
        chips: texts('.chip', card),
      })),
      outcome: document.querySelector('.outcome')?.textContent ?? null,
    };
  })()`)) as ShownTranscript;
}

const SCREENSHOTS = fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url));

/**
 * Saves a screenshot of `tab` as `docs/screenshots/<name>.png` when `RUNBRIDGE_UI_SCREENSHOTS=1`
 * (docs/ui.md says how they are made); otherwise does nothing, so test runs leave the tree alone.
 */
export async function snap(tab: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.RUNBRIDGE_UI_SCREENSHOTS !== '1') return;
  await mkdir(SCREENSHOTS, { recursive: true });
  // A whole page is drawn from its top: scrolled (as the page follows a run), its sticky bar and run
  // list would be drawn where the window was.
  if (options.fullPage) await tab.evaluate('window.scrollTo(0, 0)');
  // The caret and spinners blink: stopped, so a screenshot does not depend on the moment.
  await tab.screenshot({
    path: `${SCREENSHOTS}${name}.png`,
    fullPage: options.fullPage ?? false,
    animations: 'disabled',
    caret: 'hide',
  });
}

/** Runs axe-core's WCAG 2 A and AA rules on the page as it is; resolves to the violations, each as `rule: targets`. */
export async function accessibilityViolations(tab: Page): Promise<string[]> {
  const source = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await tab.evaluate(source);
  return (await tab.evaluate(`axe
    .run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((results) => results.violations.map(
      (violation) => violation.id + ': ' + violation.nodes.map((node) => node.target.join(' ')).join(', '),
    ))`)) as string[];
}
