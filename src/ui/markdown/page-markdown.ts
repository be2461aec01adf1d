import type { DrawingPage } from './markdown-drawing.js';
import { MarkdownWorker, type WorkerAnswer } from './markdown-worker-client.js';
import { sanitizeHtml } from './sanitize-html.js';
import { SyncBudget } from './sync-budget.js';

/** One budget for the page's thread, shared by every Markdown text on the page. */
const budget = new SyncBudget();
let worker: MarkdownWorker | undefined;

/** The page's one Markdown worker, `markdown-worker.js` beside `app.js`, started when a text first needs it. */
function pageWorker(): MarkdownWorker {
  worker ??= new MarkdownWorker((answer, failed) => {
    const started = new Worker(new URL('markdown-worker.js', import.meta.url), { type: 'module' });
    started.onmessage = (event: MessageEvent<WorkerAnswer>) => answer(event.data);
    started.onerror = (event) => {
      event.preventDefault();
      failed();
    };
    return started;
  });
  return worker;
}

/** What a Markdown text on this page draws with (markdown-drawing.ts); `redraw` draws its view again. */
export function drawingPage(redraw: () => void): DrawingPage {
  return { sanitize: sanitizeHtml, worker: pageWorker, budget, redraw };
}
