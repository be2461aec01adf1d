// The page's Markdown worker (markdown-worker-client.ts): draws the tails the page sends it, off the
// page's thread, saying before each step that may take long which one it is, so the page can stop a
// step that takes too long and show that block as written. Built to `markdown-worker.js` beside `app.js`.
import { drawTail } from './draw-tail.js';
import type { DrawRequest, WorkerAnswer } from './markdown-worker-client.js';

/** The worker's global scope, as far as it is used here (the page's types know windows, not workers). */
const scope = globalThis as unknown as {
  onmessage: ((event: { data: DrawRequest }) => void) | null;
  postMessage(answer: WorkerAnswer): void;
};

scope.onmessage = ({ data: { job, tail, careful, plainAt, budgetMs } }) => {
  const drawn = drawTail(tail, {
    careful,
    plainAt,
    deadline: performance.now() + budgetMs,
    step: (step) => scope.postMessage({ job, step }),
  });
  scope.postMessage({ job, drawn });
};
