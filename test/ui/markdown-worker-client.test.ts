import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DrawnTail } from '../../src/ui/markdown/draw-tail.js';
import {
  type DrawOutcome,
  type DrawRequest,
  MarkdownWorker,
  type WorkerAnswer,
} from '../../src/ui/markdown/markdown-worker-client.js';

const STEP_MS = 1000;
const DRAWN: DrawnTail = { blocks: [{ html: '<p>hi</p>' }], settledBlocks: 0, settledChars: 0, whole: false };
const REQUEST = { tail: 'hi', careful: false, plainAt: [], budgetMs: 3000 };

/** Workers the test plays: each started one, what it was asked, and whether it was ended. */
function fakeWorkers(stepMs = STEP_MS) {
  const started: Array<{
    requests: DrawRequest[];
    terminated: boolean;
    answer: (data: WorkerAnswer) => void;
    fail: () => void;
  }> = [];
  const worker = new MarkdownWorker((answer, fail) => {
    const one = { requests: [] as DrawRequest[], terminated: false, answer, fail };
    started.push(one);
    return {
      postMessage: (request) => one.requests.push(request),
      terminate: () => {
        one.terminated = true;
      },
    };
  }, stepMs);
  return { worker, started };
}

/** Whether `promise` has settled, and how, once the promises it waits on have run. */
async function settled(promise: Promise<DrawOutcome>): Promise<DrawOutcome | 'pending'> {
  return Promise.race([promise, new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);
}

/**
 * The page's Markdown worker, as the page's thread sees it (docs/ui.md, Markdown): draws in order,
 * stops a step that takes too long by ending the worker, and says at once when no worker can run.
 */
describe('the Markdown worker', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('draws one tail at a time, in the order asked, in one worker', async () => {
    const { worker, started } = fakeWorkers();
    const first = worker.draw(REQUEST);
    const second = worker.draw({ ...REQUEST, tail: 'there' });
    expect(started).toHaveLength(1);
    expect(started[0]!.requests.map((request) => request.tail)).toEqual(['hi']);
    started[0]!.answer({ job: started[0]!.requests[0]!.job, drawn: DRAWN });
    expect(await first).toEqual({ drawn: DRAWN });
    expect(started[0]!.requests.map((request) => request.tail)).toEqual(['hi', 'there']);
    started[0]!.answer({ job: started[0]!.requests[1]!.job, drawn: DRAWN });
    expect(await second).toEqual({ drawn: DRAWN });
    expect(started).toHaveLength(1);
  });

  it('ends a worker whose step takes too long, says which step, and draws the next tail in a new one', async () => {
    const { worker, started } = fakeWorkers();
    const slow = worker.draw(REQUEST);
    const next = worker.draw({ ...REQUEST, tail: 'next' });
    const job = started[0]!.requests[0]!.job;
    // Each step it starts gives it the whole time again.
    vi.advanceTimersByTime(STEP_MS - 1);
    started[0]!.answer({ job, step: 40 });
    vi.advanceTimersByTime(STEP_MS - 1);
    expect(await settled(slow)).toBe('pending');
    vi.advanceTimersByTime(1);
    expect(await slow).toEqual({ stoppedAt: 40, ms: 2 * STEP_MS - 1 });
    expect(started[0]!.terminated).toBe(true);
    expect(started).toHaveLength(2);
    expect(started[1]!.requests.map((request) => request.tail)).toEqual(['next']);
    // What the ended worker still had in its queue is not taken for an answer.
    started[0]!.answer({ job, drawn: DRAWN });
    started[1]!.answer({ job: started[1]!.requests[0]!.job, drawn: DRAWN });
    expect(await next).toEqual({ drawn: DRAWN });
  });

  it('says at once, for every tail now and later, when no worker can run on the page', async () => {
    const failing = new MarkdownWorker(() => {
      throw new Error('Refused by the Content-Security-Policy.');
    });
    expect(await failing.draw(REQUEST)).toEqual({ unavailable: true });

    const { worker, started } = fakeWorkers();
    const waiting = [worker.draw(REQUEST), worker.draw(REQUEST)];
    // The script did not load: the worker fails before it ever answered.
    started[0]!.fail();
    expect(await Promise.all(waiting)).toEqual([{ unavailable: true }, { unavailable: true }]);
    expect(await worker.draw(REQUEST)).toEqual({ unavailable: true });
    expect(started).toHaveLength(1);
  });

  it('takes a worker that crashed after it answered for a step that never ends', async () => {
    const { worker, started } = fakeWorkers();
    const first = worker.draw(REQUEST);
    started[0]!.answer({ job: started[0]!.requests[0]!.job, drawn: DRAWN });
    await first;
    const second = worker.draw(REQUEST);
    started[0]!.answer({ job: started[0]!.requests[1]!.job, step: 7 });
    started[0]!.fail();
    expect(await second).toMatchObject({ stoppedAt: 7 });
    expect(await settled(worker.draw(REQUEST))).toBe('pending');
    expect(started).toHaveLength(2);
  });

  it('skips a tail whose view went away before its turn', async () => {
    const { worker, started } = fakeWorkers();
    const first = worker.draw(REQUEST);
    const gone = new AbortController();
    void worker.draw({ ...REQUEST, tail: 'gone' }, gone.signal);
    const last = worker.draw({ ...REQUEST, tail: 'last' });
    gone.abort();
    started[0]!.answer({ job: started[0]!.requests[0]!.job, drawn: DRAWN });
    await first;
    expect(started[0]!.requests.map((request) => request.tail)).toEqual(['hi', 'last']);
    started[0]!.answer({ job: started[0]!.requests[1]!.job, drawn: DRAWN });
    expect(await last).toEqual({ drawn: DRAWN });
  });

  it('gives the worker a moment more when the page’s thread was itself busy past the time', async () => {
    vi.useRealTimers();
    const { worker, started } = fakeWorkers(20);
    const draw = worker.draw(REQUEST);
    // The page's thread is busy past the time; the worker's answer came meanwhile and waits to be read.
    const until = performance.now() + 200;
    while (performance.now() < until) {
      // A long task of the page's own.
    }
    setImmediate(() => started[0]!.answer({ job: started[0]!.requests[0]!.job, drawn: DRAWN }));
    expect(await draw).toEqual({ drawn: DRAWN });
    expect(started[0]!.terminated).toBe(false);
  });
});
