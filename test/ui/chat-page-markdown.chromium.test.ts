import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
import { createWorkspaceEnvironment } from '../../adapters/environments/workspace/workspace-environment.js';
import type { ModelPart } from '../../src/models/model.js';
import { cutIntoDeltas, LONG_ANSWER_LAST_LINE, longMarkdownAnswer } from '../support/long-markdown.js';
import { type LoopbackServer, serveLoopback } from '../support/loopback-server.js';
import { scriptedProvider, singleModelProvider } from '../support/scripted-model.js';
import { accessibilityViolations, PATIENCE, snap, useChatPageRig, waitForForm } from './support/chat-page.js';

/** The code block of the hostile answer, which its Copy button must copy exactly. */
const CODE = 'def area(radius):\n    """The area of a circle."""\n    return 3.14159 * radius ** 2';

/** What a model may write, attacks included: each must show as text, run nothing and load nothing. */
function hostileAnswer(listener: string): string {
  return [
    '## Circle areas',
    'Here is **what I found**, with `area()`:',
    '- small circles\n- large circles\n  - very large ones',
    '| radius | area |\n|---:|---:|\n| 1 | 3.14 |\n| 2 | 12.57 |',
    `\`\`\`python\n${CODE}\n\`\`\``,
    `An image: <img src=x onerror="document.title='pwned';fetch('${listener}/img')"> and a script:`,
    `<script>document.title = 'pwned'; fetch('${listener}/script');</script>`,
    `[click me](javascript:fetch('${listener}/link')) and [the source](https://example.com/circles).`,
    `![a circle](${listener}/circle.png)`,
  ].join('\n\n');
}

/** The long answer of the streaming tests, and how many deltas it streams in. */
const LONG_ANSWER = longMarkdownAnswer(20_000);
const DELTAS = 5_000;

/**
 * The chat page draws what models write (docs/ui.md): Markdown — headings, lists, tables,
 * highlighted code with a Copy button — with raw HTML shown as text, no script run, no image loaded
 * and no link but http, https and mailto; the same drawing whether an answer streams in thousands of
 * deltas or comes in one piece; a page that answers while a long answer streams; Enter to start a run.
 */
describe('the chat page draws Markdown, safely', () => {
  let listener: LoopbackServer;
  beforeAll(async () => {
    // Where the attacks in the hostile answer would call home: it must hear nothing.
    listener = await serveLoopback((_req, res) => res.end());
  });
  afterAll(() => listener?.close());

  const rig = useChatPageRig({}, () => ({
    environments: [arithEnvironment, createWorkspaceEnvironment({ slowToolMs: 20 })],
    providers: [
      scriptedProvider({
        hostile: [{ text: hostileAnswer(listener.url) }],
        files: [
          {
            toolCalls: [
              {
                name: 'write_file',
                arguments: JSON.stringify({
                  path: 'notes/summary.md',
                  content: '# Summary\n\n| file | lines |\n|---|---|\n| app.ini | 12 |\n\n- checked',
                }),
              },
            ],
          },
          { toolCalls: [{ name: 'read_file', arguments: '{"path": "notes/summary.md"}' }] },
          { toolCalls: [{ name: 'read_file', arguments: '{"path": "config/features.json"}' }] },
          { text: 'Both files are read.' },
        ],
      }),
      singleModelProvider('drip', async function* (request): AsyncGenerator<ModelPart> {
        for (const delta of cutIntoDeltas(LONG_ANSWER, DELTAS)) yield { type: 'text-delta', delta };
        // Held open, so the page is still following a running run when the test looks at it.
        await new Promise((_resolve, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }),
        );
      }),
      singleModelProvider('whole', async function* (): AsyncGenerator<ModelPart> {
        yield { type: 'text-delta', delta: LONG_ANSWER };
        yield { type: 'finish', reason: 'stop' };
      }),
    ],
  }));

  it('draws headings, lists, tables and highlighted code, and runs, loads and links nothing it should not', async () => {
    // The Copy buttons are checked by reading the clipboard back.
    await rig.browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rig.bridge.url });
    const { tab, problems, foreign } = await rig.open();
    await waitForForm(tab);
    await tab.getByLabel('Environment').selectOption('arith');
    await tab.getByLabel('Model', { exact: true }).selectOption('scripted:hostile');
    await tab.getByLabel('Chat mode').setChecked(false);
    // Enter starts the run from the message box; Shift+Enter is a new line in it.
    const message = tab.getByLabel('Message');
    await message.pressSequentially('Areas, please.');
    await message.press('Shift+Enter');
    await message.pressSequentially('Two of them.');
    await message.press('Enter');
    await tab.waitForURL(/#\/runs\/run_\w+$/);
    await tab.locator('.outcome').waitFor(PATIENCE);
    expect(await tab.locator('.user-bubble').textContent()).toBe('Areas, please.\nTwo of them.');

    const answer = tab.locator('.assistant-text');
    expect(await answer.locator('h4').textContent()).toBe('Circle areas');
    expect(await answer.locator('strong').textContent()).toBe('what I found');
    expect((await answer.locator('li').allTextContents()).map((item) => item.trim())).toEqual([
      'small circles',
      'large circles\nvery large ones',
      'very large ones',
    ]);
    expect(await answer.locator('th').allTextContents()).toEqual(['radius', 'area']);
    expect(await answer.locator('td').allTextContents()).toEqual(['1', '3.14', '2', '12.57']);
    const code = answer.locator('.code-block code');
    expect(await code.textContent()).toBe(CODE);
    expect(await code.locator('.hljs-keyword').allTextContents()).toContain('def');
    expect(await code.locator('.hljs-string').allTextContents()).toEqual(['"""The area of a circle."""']);

    // The attacks show as the text the model wrote; nothing of them runs or loads.
    const text = await answer.textContent();
    expect(text).toContain(`<img src=x onerror="document.title='pwned';fetch('${listener.url}/img')">`);
    expect(text).toContain(`<script>document.title = 'pwned'; fetch('${listener.url}/script');</script>`);
    expect(await answer.locator('img, script, iframe, [onerror], [style]').count()).toBe(0);
    // The javascript: link is its text alone; the https one is a link that cannot reach back to the page.
    expect(await answer.getByText('click me').evaluate((element) => element.closest('a'))).toBeNull();
    await answer.getByText('click me').click();
    const links = await answer
      .locator('a')
      .evaluateAll((elements) => elements.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('rel')]));
    expect(links).toEqual([
      ['the source', 'https://example.com/circles', 'noopener noreferrer'],
      [`${listener.url}/circle.png`, `${listener.url}/circle.png`, 'noopener noreferrer'],
    ]);
    expect(await answer.locator('.md-image').textContent()).toBe(`Image: a circle ${listener.url}/circle.png`);

    await tab.evaluate('window.scrollTo(0, 0)');
    await snap(tab, 'markdown', { fullPage: true });

    // The code block's Copy button copies the code; the answer's copies its Markdown.
    await answer.getByRole('button', { name: 'Copy code' }).click();
    await answer.getByRole('button', { name: 'Copied code' }).waitFor(PATIENCE);
    expect(await clipboard(tab)).toBe(CODE);
    await tab.getByRole('button', { name: 'Copy the answer of turn 1 as Markdown' }).click();
    expect(await clipboard(tab)).toBe(hostileAnswer(listener.url));

    expect(await tab.title()).toBe('runbridge');
    expect(listener.requests()).toBe(0);
    expect(problems).toEqual([]);
    expect(foreign).toEqual([]);
    for (const colorScheme of ['light', 'dark'] as const) {
      await tab.emulateMedia({ colorScheme });
      expect(await accessibilityViolations(tab), colorScheme).toEqual([]);
    }
    await tab.close();
  });

  it('shows a tool output that is Markdown drawn, and one that is JSON indented and highlighted', async () => {
    const runId = await rig.bridge.startRun({ env: 'workspace', model: 'scripted:files' });
    const { tab, problems } = await rig.open({ hash: `#/runs/${runId}` });
    await tab.locator('.outcome').waitFor(PATIENCE);
    const outputs = tab.locator('.tool-output');
    await expect.poll(() => outputs.count(), PATIENCE).toBe(3);
    // What write_file answered is plain text; the Markdown file it wrote is drawn when read back.
    expect(await outputs.nth(0).locator('pre').textContent()).toMatch(/^Created notes\/summary\.md/);
    expect(await outputs.nth(1).locator('.tool-markdown td').allTextContents()).toEqual(['app.ini', '12']);
    expect(await outputs.nth(1).locator('.tool-markdown li').allTextContents()).toEqual(['checked']);
    const json = outputs.nth(2);
    expect(await json.locator('.tool-output-label').textContent()).toBe('Output · json');
    // Cut while folded, whole once shown.
    await json.getByRole('button', { name: /^Show all \d+ lines$/ }).click();
    expect(JSON.parse((await json.locator('pre').textContent()) ?? '')).toHaveProperty('features');
    expect(await json.locator('.hljs-attr').first().textContent()).toBe('"features"');
    expect(problems).toEqual([]);
    await tab.close();
  });

  it('draws a long answer streamed in 5,000 deltas as it draws the same answer in one piece, and answers the person meanwhile', async () => {
    const whole = await rig.bridge.startRun({ env: 'arith', model: 'whole' });
    const dripping = await rig.bridge.startRun({ env: 'arith', model: 'drip' });
    const one = await rig.open({ hash: `#/runs/${whole}` });
    const streamed = await rig.open({ hash: `#/runs/${dripping}` });

    await one.tab.locator('.outcome').waitFor(PATIENCE);
    // In one piece, the answer is drawn in the page's worker: it shows once the worker is done.
    for (const { tab } of [one, streamed]) {
      await tab.locator('.assistant-text p', { hasText: LONG_ANSWER_LAST_LINE }).waitFor(PATIENCE);
    }
    const drawn = (tab: Page) => tab.locator('.assistant-text').evaluate((element) => element.innerHTML);
    expect(await drawn(streamed.tab)).toBe(await drawn(one.tab));
    expect(await streamed.tab.locator('.assistant-text table').count()).toBe(await one.tab.locator('table').count());

    // While the run goes on, the person can type, and stop it with the button in view.
    const box = streamed.tab.getByLabel('Message the model');
    await box.pressSequentially('Thanks, that is enough.');
    expect(await box.inputValue()).toBe('Thanks, that is enough.');
    const stop = streamed.tab.getByRole('button', { name: 'Stop' });
    // Kept in view at the bottom of the window, below 20,000 characters of answer.
    const inView = () =>
      stop.evaluate((element) => {
        const box = element.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= element.ownerDocument.documentElement.clientHeight;
      });
    await expect.poll(inView, PATIENCE).toBe(true);
    await stop.click();
    await streamed.tab.locator('.outcome-cancelled').waitFor(PATIENCE);
    expect(await stop.count()).toBe(0);
    expect((await rig.bridge.readEvents(dripping)).filter((event) => event.event === 'message.delta')).toHaveLength(
      DELTAS,
    );
    for (const { problems } of [one, streamed]) expect(problems).toEqual([]);
    await one.tab.close();
    await streamed.tab.close();
  });
});

/** What the clipboard holds, as the page reads it. */
function clipboard(tab: Page): Promise<string> {
  return tab.evaluate('navigator.clipboard.readText()') as Promise<string>;
}
