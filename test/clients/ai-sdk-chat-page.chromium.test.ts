import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { UIMessage } from 'ai';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { LOCAL_OWNER } from '../../src/http/authenticate.js';
import { type LaunchedChromium, launchChromium } from '../support/launch-chromium.js';
import { type PageProxy, startPageProxy } from '../support/page-proxy.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment } from '../support/test-environment.js';
import { summaryOfEvents, summaryOfMessage } from './ui-message-summary.js';

const PAGE_DIR = new URL('./ai-sdk-chat-page/', import.meta.url);

/** `chat-page.ts` bundled for the browser with the `ai` package, inlined into `index.html`. */
async function chatPageHtml(): Promise<string> {
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('chat-page.ts', PAGE_DIR))],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'silent',
  });
  // Inlined, a `</script` inside the bundle would end the element early.
  const script = bundle.outputFiles[0]!.text.replaceAll('</script', '<\\/script');
  const html = await readFile(new URL('index.html', PAGE_DIR), 'utf8');
  return html.replace('/* chat-page.ts */', () => script);
}

interface PageChat {
  status: string;
  error: string | undefined;
  messages: UIMessage[];
}

interface Drawn {
  text: string[];
  reasoning: string[];
  tools: Array<{ name: string; input: unknown; state: string; output?: string; elapsed?: string }>;
  run?: string;
  status: string;
}

/**
 * A minimal page built on the `ai` package's chat and its DefaultChatTransport, in headless
 * Chromium, against a real bridge on the page's own origin: one without keys, where the page starts
 * runs itself, and one with keys, where the page only watches a run through a stream token.
 */
describe('an AI SDK chat page in Chromium', () => {
  let html: string;
  let browser: LaunchedChromium;

  beforeAll(async () => {
    html = await chatPageHtml();
    browser = await launchChromium();
  });
  afterAll(() => browser?.close());

  /** Opens `path` on `proxy`, failing the test on any console error or uncaught exception. */
  async function open(proxy: PageProxy, path: string): Promise<{ tab: Page; problems: string[] }> {
    const tab = await browser.context.newPage();
    const problems: string[] = [];
    tab.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    tab.on('pageerror', (error) => problems.push(error.message));
    await tab.goto(`${proxy.url}${path}`);
    return { tab, problems };
  }

  /** The chat's state once it is back to `ready` after streaming (or in `error`). */
  async function settled(tab: Page): Promise<PageChat> {
    // `chatState` is there once the page's module has run. This file has no DOM types: the page's
    // own script reads the page, and the test calls it by name.
    await tab.waitForFunction(
      `typeof chatState === 'function' && ['ready', 'error'].includes(chatState().status) &&
        chatState().messages.some((message) => message.role === 'assistant')`,
    );
    return (await tab.evaluate('chatState()')) as PageChat;
  }

  /** What the page drew of the assistant's messages: text, reasoning, each tool card, the run's outcome. */
  async function drawn(tab: Page): Promise<Drawn> {
    return (await tab.evaluate('drawn()')) as Drawn;
  }

  it("sends a message that starts a run, shows a slow call running with its timer, then the run's whole message", async () => {
    const test = createTestEnvironment('testenv');
    const bridge = await startTestBridge(
      { RUNBRIDGE_TOOL_PROGRESS_SECONDS: '0.05' },
      {
        environments: [...builtinEnvironments, test.environment],
        providers: [
          scriptedProvider({
            held: [
              {
                reasoning: 'The user wants me to wait.',
                text: 'Waiting for the test. ',
                toolCalls: [{ name: 'wait', arguments: '{"key":"page"}' }],
              },
            ],
          }),
        ],
      },
    );
    const proxy = await startPageProxy(bridge.url, html);
    try {
      const { tab, problems } = await open(proxy, '/#env=testenv&model=scripted:held');
      await tab.getByLabel('Message').fill('Please wait.');
      await tab.getByRole('button', { name: 'Send' }).click();
      await test.probe.started('page');
      // While the tool runs, its card shows its input and a timer that tool.progress moves on.
      await tab.waitForFunction(
        `typeof drawn === 'function' && Number.parseFloat(drawn().tools[0]?.elapsed ?? '0') > 0`,
      );
      const running = await drawn(tab);
      expect(running.tools).toEqual([
        { name: 'wait', input: { key: 'page' }, state: 'input-available', elapsed: expect.stringMatching(/^[\d.]+s$/) },
      ]);
      expect(running.text).toEqual(['Waiting for the test. ']);
      expect(running.run).toBe('running');
      test.probe.release('page', 'Released by the test.');

      const chat = await settled(tab);
      expect(chat.status).toBe('ready');
      const [user, assistant] = chat.messages;
      expect(user).toMatchObject({ role: 'user', parts: [{ type: 'text', text: 'Please wait.' }] });
      const events = await bridge.readEvents(assistant!.id);
      expect(events[0]).toMatchObject({ event: 'run.started', env: 'testenv', model: 'scripted:held' });
      const expected = summaryOfEvents(events);
      expect(summaryOfMessage(assistant!)).toEqual(expected);
      expect(await drawn(tab)).toEqual({
        text: ['Waiting for the test. '],
        reasoning: ['The user wants me to wait.'],
        tools: [{ name: 'wait', input: { key: 'page' }, state: 'output-available', output: 'Released by the test.' }],
        run: 'completed · reward 1',
        status: 'ready',
      });
      // The run was started with the message as its input, and its stream read once, as ai-sdk.
      const run = await bridge.registry.open(assistant!.id, LOCAL_OWNER);
      expect(run.record.request.input).toBe('Please wait.');
      expect(proxy.requests.map((request) => `${request.method} ${request.url} ${request.status}`)).toEqual([
        'POST /v1/runs 202',
        `GET /v1/runs/${assistant!.id}/events?format=ai-sdk 200`,
      ]);
      expect(problems).toEqual([]);
    } finally {
      test.probe.release('page', 'Released by the test.');
      await proxy.close();
      await bridge.shutdown();
    }
  });

  it('watches a run on a bridge with keys through a stream token, the page holding no key', async () => {
    const bridge = await startTestBridge(
      { RUNBRIDGE_API_KEYS: 'page-key-0123456789' },
      { apiKey: 'page-key-0123456789' },
    );
    const proxy = await startPageProxy(bridge.url, html);
    try {
      const runId = await bridge.startRun({ env: 'workspace' });
      const minted = await bridge.fetch(`/v1/runs/${runId}/stream-token`, { method: 'POST' });
      const { events_url: eventsUrl } = (await minted.json()) as { events_url: string };
      const { tab, problems } = await open(
        proxy,
        `/#run=${encodeURIComponent(runId)}&events=${encodeURIComponent(eventsUrl)}`,
      );
      const chat = await settled(tab);
      expect(chat.status).toBe('ready');
      expect(chat.messages).toHaveLength(1);
      const events = await bridge.readEvents(runId);
      const expected = summaryOfEvents(events);
      expect(summaryOfMessage(chat.messages[0]!)).toEqual(expected);
      const page = await drawn(tab);
      expect(page.text).toEqual(expected.text);
      expect(page.tools.map((tool) => [tool.name, tool.state, tool.output])).toEqual(
        expected.tools.map((tool) => [tool.toolName, tool.state, tool.output]),
      );
      expect(page.run).toBe('completed · reward 1');
      // Only the token opened the stream: no request of the page carried a key.
      expect(proxy.requests).toHaveLength(1);
      expect(proxy.requests[0]).toMatchObject({ method: 'GET', status: 200 });
      expect(problems).toEqual([]);
    } finally {
      await proxy.close();
      await bridge.shutdown();
    }
  });
});
