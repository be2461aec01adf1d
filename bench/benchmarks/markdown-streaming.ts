import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { arithEnvironment } from '../../adapters/environments/arith/arith-environment.js';
// @ts-expect-error: the build script is plain JavaScript, run by `npm run build` too.
import { UI_ESBUILD_OPTIONS } from '../../scripts/build-ui.mjs';
import { createClient } from '../../src/client/index.js';
import { loadConfig } from '../../src/config/index.js';
import { startRunbridge } from '../../src/main.js';
import type { ModelPart } from '../../src/models/model.js';
import { createLogger } from '../../src/telemetry/create-logger.js';
import { type LaunchedChromium, launchChromium } from '../../test/support/launch-chromium.js';
import { cutIntoDeltas, LONG_ANSWER_LAST_LINE, longMarkdownAnswer } from '../../test/support/long-markdown.js';
import { singleModelProvider } from '../../test/support/scripted-model.js';
import { type BuiltPage, buildPage } from '../../test/ui/support/build-page.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { alternate, median, pairedRatio, percentile } from '../support/measure.js';

/** How many deltas the answer streams in, and about how long it is: a long answer in small pieces. */
const DELTAS = 5_000;
const ANSWER_CHARS = 20_000;

/**
 * The whole-text way is drawn after every this-many deltas only, and its total scaled up: its cost
 * depends only on the length of the text so far, and drawing it after all 5,000 takes minutes.
 */
const WHOLE_EVERY = 20;

/** Where the measuring page is served from, inside Chromium only (every request to it is answered by the bench). */
const ORIGIN = 'http://bench.invalid';

/**
 * The measuring page's script, bundled from the chat page's own modules: `drawDeltas(deltas, way,
 * every)` grows a text by each delta in turn and draws it after every `every`-th one, as the page
 * does (`blocks`: the MarkdownView component, which lexes and draws only the last blocks again) or
 * the obvious way (`whole`: the whole text parsed, sanitised and put in the DOM again), forcing style
 * and layout after each draw, as a frame would, each draw in a task of its own; it answers the
 * milliseconds each draw took.
 */
const ENTRY = `
import { h, render } from 'preact';
import { MarkdownView } from './components/markdown-view.js';
import { markdownParser } from './markdown/markdown-parser.js';
import { sanitizeHtml } from './markdown/sanitize-html.js';

window.drawDeltas = async (deltas, way, every) => {
  const root = document.getElementById('root');
  render(null, root);
  root.textContent = '';
  const times = [];
  let text = '';
  for (const [index, delta] of deltas.entries()) {
    text += delta;
    if ((index + 1) % every !== 0) continue;
    // Each draw in a task of its own, as the page's are: its budget for Markdown work is per task.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const start = performance.now();
    if (way === 'blocks') {
      render(h(MarkdownView, { text, class: 'assistant-text is-streaming' }), root);
    } else {
      root.innerHTML = '<div class="markdown assistant-text">' + sanitizeHtml(markdownParser.parse(text)) + '</div>';
    }
    void root.offsetHeight;
    times.push(performance.now() - start);
  }
  return times;
};
`;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="stylesheet" href="/app.css"><script type="module" src="/bench.js"></script></head>
<body><main><section class="run"><ol class="transcript"><li class="entry entry-turn" id="root"></li></ol></section></main></body></html>`;

const TYPES: Record<string, string> = { '.css': 'text/css', '.woff2': 'font/woff2' };

/**
 * Benchmark 10: a Markdown answer streamed in 5,000 deltas, in headless Chromium. First the drawing
 * alone: the answer drawn after every delta by the chat page's MarkdownView (only its last blocks
 * lexed and drawn again) vs the whole text parsed, sanitised and put in the DOM again each time. Then
 * the page itself: a run whose answer came in 5,000 deltas opened on a bridge, until the whole answer
 * shows, vs the same answer in one delta.
 */
export async function benchMarkdownStreaming(ctx: BenchContext): Promise<BenchResult> {
  const rounds = ctx.quick ? 1 : 3;
  const answer = longMarkdownAnswer(ANSWER_CHARS);
  const deltas = cutIntoDeltas(answer, DELTAS);
  ctx.progress('markdown: building the page');
  const page = await buildPage();
  const browser = await launchChromium();
  try {
    const drawing = await measureDrawing(ctx, browser, page, deltas, rounds);
    const opening = await measurePage(ctx, browser, page, answer, deltas, rounds);
    return {
      title: '10. Drawing Markdown as it streams',
      method:
        `A Markdown answer of ${formatNumber(answer.length)} characters (headings, lists, tables, fenced code, quotes) ` +
        `in ${formatNumber(DELTAS)} deltas of 1 to 7 characters, in headless Chromium with the page's own renderer and ` +
        'styles. First table: the answer drawn after every delta, each draw followed by a forced style and layout as a ' +
        "frame would be — the chat page's MarkdownView, which lexes and draws only the last blocks again, vs the whole " +
        `text parsed, sanitised and put in the DOM again (drawn after every ${drawing.wholeEvery}th delta only and its ` +
        'total scaled up: its cost depends only on the length so far). Second table: the chat page opening a finished ' +
        'run whose answer came in those deltas, from navigation until the last line of the answer shows, and the main ' +
        "thread's busy time over it (Chromium's TaskDuration), vs a run with the same answer in one delta. Medians over " +
        `${rounds} alternating round(s) after a warm-up; ratios are medians of per-round ratios.`,
      tables: [drawing.table, opening.table],
      verdicts: [
        {
          target: `none set; ${formatNumber(DELTAS)} deltas, each drawn`,
          measured:
            `${formatNumber(drawing.total, 0)} ms (p95 ${formatNumber(drawing.p95, 2)} ms a draw), ` +
            `${formatRatio(drawing.ratio)} the whole text each time`,
          met: null,
        },
        {
          target: `none set; a run of ${formatNumber(DELTAS)} deltas opened`,
          measured: `${formatNumber(opening.wall, 0)} ms to the last line, ${formatRatio(opening.ratio)} one delta`,
          met: null,
        },
      ],
      notes: [
        'The page draws at most every 30 ms (docs/ui.md), so a stream this fast is drawn tens of times, not 5,000: the ' +
          'first table is the worst case, a frame for every delta; the second is the page itself, drawing in its batches.',
        'Painting is not in the first table (a forced layout is). Its times are the main thread’s, which a person feels ' +
          'as the page keeping up with typing and scrolling while an answer streams.',
      ],
    };
  } finally {
    await browser.close();
    await page.remove();
  }
}

/** The first table: the answer drawn after every delta, the page's way and the whole text each time. */
async function measureDrawing(
  ctx: BenchContext,
  browser: LaunchedChromium,
  page: BuiltPage,
  deltas: string[],
  rounds: number,
) {
  const script = await build({
    ...UI_ESBUILD_OPTIONS,
    stdin: { contents: ENTRY, resolveDir: join(UI_ESBUILD_OPTIONS.absWorkingDir, 'src/ui'), loader: 'js' },
    write: false,
  });
  const tab = await browser.context.newPage();
  await tab.route(`${ORIGIN}/**`, async (route) => {
    const path = new URL(route.request().url()).pathname;
    if (path === '/bench.html') return route.fulfill({ contentType: 'text/html', body: PAGE });
    if (path === '/bench.js')
      return route.fulfill({ contentType: 'text/javascript', body: script.outputFiles![0]!.text });
    const file = join(page.dir, path.slice(1));
    return route.fulfill({
      contentType: TYPES[extname(file)] ?? 'application/octet-stream',
      body: await readFile(file),
    });
  });
  await tab.goto(`${ORIGIN}/bench.html`);
  await tab.waitForFunction('typeof drawDeltas === "function"');
  const every = { blocks: 1, whole: ctx.quick ? 5 * WHOLE_EVERY : WHOLE_EVERY };
  const draw = (way: 'blocks' | 'whole') => () =>
    tab.evaluate(([all, how, step]) => (globalThis as unknown as Drawing).drawDeltas(all, how, step), [
      deltas,
      way,
      every[way],
    ] as const);
  ctx.progress('markdown: drawing, warming up');
  await alternate(1, { blocks: draw('blocks'), whole: draw('whole') });
  ctx.progress(`markdown: drawing, ${rounds} round(s) of ${DELTAS} deltas each way`);
  const samples = await alternate(rounds, { blocks: draw('blocks'), whole: draw('whole') });
  await tab.close();
  // The time to draw after each of the deltas (for the whole-text way, scaled up from its samples).
  const totals = (runs: number[][]) =>
    runs.map((times) => (times.reduce((sum, time) => sum + time, 0) * deltas.length) / times.length);
  const ratio = pairedRatio(totals(samples.blocks), totals(samples.whole));
  const row = (name: string, runs: number[][], vs: string) => {
    const all = runs.flat();
    return [
      name,
      formatNumber(median(totals(runs)), 0),
      formatNumber(percentile(all, 50), 2),
      formatNumber(percentile(all, 95), 2),
      formatNumber(Math.max(...all), 1),
      vs,
    ];
  };
  return {
    wholeEvery: every.whole,
    total: median(totals(samples.blocks)),
    p95: percentile(samples.blocks.flat(), 95),
    ratio,
    table: {
      columns: ['drawn after each delta', `ms for ${formatNumber(DELTAS)}`, 'p50 ms', 'p95 ms', 'max ms', 'vs whole'],
      rows: [
        row('last blocks only (the page)', samples.blocks, formatRatio(ratio)),
        row('whole text each time', samples.whole, '1.00×'),
      ],
    },
  };
}

/** The second table: the chat page opening a run whose answer came in `deltas`, and one whose answer came whole. */
async function measurePage(
  ctx: BenchContext,
  browser: LaunchedChromium,
  page: BuiltPage,
  answer: string,
  deltas: string[],
  rounds: number,
) {
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', RUNBRIDGE_MODEL: 'whole' });
  const bridge = await startRunbridge({
    config,
    uiDir: page.dir,
    environments: [arithEnvironment],
    providers: [
      singleModelProvider('deltas', async function* (): AsyncGenerator<ModelPart> {
        for (const delta of deltas) yield { type: 'text-delta', delta };
        yield { type: 'finish', reason: 'stop' };
      }),
      singleModelProvider('whole', async function* (): AsyncGenerator<ModelPart> {
        yield { type: 'text-delta', delta: answer };
        yield { type: 'finish', reason: 'stop' };
      }),
    ],
    // Warnings and errors only: the access lines would be part of what is measured.
    logger: createLogger({ level: 'warn', format: 'json', bufferBytes: config.logBufferBytes }),
  });
  const client = createClient({ baseUrl: bridge.url });
  try {
    const open = (model: 'deltas' | 'whole') => async () => {
      // The run is over before the page opens it: what is timed is the page, not the model.
      const { run_id: runId } = await client.runs.create({ env: 'arith', model });
      for await (const _event of client.runs.events(runId));
      const tab = await browser.context.newPage();
      try {
        return await timeToAnswer(tab, `${bridge.url}/#/runs/${runId}`);
      } finally {
        await tab.close();
      }
    };
    ctx.progress('markdown: the page, warming up');
    await alternate(1, { deltas: open('deltas'), whole: open('whole') });
    ctx.progress(`markdown: the page, ${rounds} round(s)`);
    const samples = await alternate(rounds, { deltas: open('deltas'), whole: open('whole') });
    const wall = (runs: Opened[]) => runs.map((run) => run.wallMs);
    const busy = (runs: Opened[]) => runs.map((run) => run.busyMs);
    const ratio = pairedRatio(wall(samples.deltas), wall(samples.whole));
    const row = (name: string, runs: Opened[], vs: string) => [
      name,
      formatNumber(median(wall(runs)), 0),
      formatNumber(median(busy(runs)), 0),
      vs,
    ];
    return {
      wall: median(wall(samples.deltas)),
      ratio,
      table: {
        columns: ['run opened on the page', 'ms to the last line', 'main thread busy ms', 'vs one delta'],
        rows: [
          row(`answer in ${formatNumber(DELTAS)} deltas`, samples.deltas, formatRatio(ratio)),
          row('answer in one delta', samples.whole, '1.00×'),
        ],
      },
    };
  } finally {
    await bridge.shutdown();
  }
}

/** What opening a run cost the page. */
interface Opened {
  wallMs: number;
  busyMs: number;
}

/** Opens `url` in `tab` and waits for the long answer's last line: the wall time, and the main thread's busy time. */
async function timeToAnswer(tab: Page, url: string): Promise<Opened> {
  const cdp = await tab.context().newCDPSession(tab);
  await cdp.send('Performance.enable');
  const taskSeconds = async () =>
    (await cdp.send('Performance.getMetrics')).metrics.find((metric) => metric.name === 'TaskDuration')?.value ?? 0;
  const busy0 = await taskSeconds();
  const start = performance.now();
  await tab.goto(url);
  await tab.locator('.assistant-text p', { hasText: LONG_ANSWER_LAST_LINE }).waitFor({ timeout: 120_000 });
  const wallMs = performance.now() - start;
  const busyMs = ((await taskSeconds()) - busy0) * 1000;
  await cdp.detach();
  return { wallMs, busyMs };
}

/** What the measuring page puts on `window`. */
interface Drawing {
  drawDeltas(deltas: readonly string[], way: 'blocks' | 'whole', every: number): Promise<number[]>;
}
