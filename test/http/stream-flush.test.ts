import { afterEach, describe, expect, it } from 'vitest';
import type { ModelPart } from '../../src/models/model.js';
import { singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * How often a run's events are written to its subscribers (`RUNBRIDGE_STREAM_FLUSH_SECONDS`,
 * docs/protocol.md §3.8): the first event after a quiet period at once, the events that follow it within the
 * period together at its end, and the terminal event at once.
 */

const FLUSH_SECONDS = 0.4;

/** A model that says `a` at the first {@link next}, `b` and `c` 5 ms apart at the second, and ends at the third. */
function steppedModel() {
  let released = 0;
  let wake: (() => void) | undefined;
  const untilReleased = async (count: number, signal: AbortSignal) => {
    while (released < count) {
      signal.throwIfAborted();
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  const provider = singleModelProvider('stepped', async function* ({ signal }): AsyncGenerator<ModelPart> {
    signal.addEventListener('abort', () => wake?.());
    await untilReleased(1, signal);
    yield { type: 'text-delta', delta: 'a' };
    await untilReleased(2, signal);
    yield { type: 'text-delta', delta: 'b' };
    await new Promise((resolve) => setTimeout(resolve, 5));
    yield { type: 'text-delta', delta: 'c' };
    await untilReleased(3, signal);
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 3 } };
    yield { type: 'finish', reason: 'stop' };
  });
  const next = () => {
    released++;
    wake?.();
  };
  return { provider, next };
}

/** Reads a response body, noting when each chunk arrived. */
async function readChunks(
  body: ReadableStream<Uint8Array>,
  chunks: Array<{ at: number; text: string }>,
): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of body) chunks.push({ at: performance.now(), text: decoder.decode(chunk, { stream: true }) });
}

const bridges: TestBridge[] = [];
/** Lets a model that is still waiting end its run, so shutting down need not wait out its grace period. */
const releases: Array<() => void> = [];
afterEach(async () => {
  for (const release of releases.splice(0)) release();
  for (const bridge of bridges.splice(0)) await bridge.shutdown();
});

describe("a run's event stream", () => {
  it('writes the first event after a quiet period at once, those that follow within the period together at its end, and the terminal event at once', async () => {
    const model = steppedModel();
    releases.push(() => {
      for (let step = 0; step < 3; step++) model.next();
    });
    const bridge = await startTestBridge(
      { RUNBRIDGE_MODEL: 'stepped', RUNBRIDGE_STREAM_FLUSH_SECONDS: String(FLUSH_SECONDS) },
      { providers: [model.provider] },
    );
    bridges.push(bridge);
    const runId = await bridge.startRun({ env: 'arith' });
    const response = await fetch(`${bridge.url}/v1/runs/${runId}/events`);
    const chunks: Array<{ at: number; text: string }> = [];
    const reading = readChunks(response.body!, chunks);
    const arrivalOf = async (text: string) => {
      for (;;) {
        const chunk = chunks.find((each) => each.text.includes(text));
        if (chunk) return chunk;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    // The run's first events, run.started and prompt.available, are out.
    await arrivalOf('"event":"prompt.available"');
    // A quiet period passes: `a` goes out at once.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_SECONDS * 1000 + 100));
    let asked = performance.now();
    model.next();
    const a = await arrivalOf('"delta":"a"');
    expect(a.at - asked).toBeLessThan(FLUSH_SECONDS * 500);
    // `b` and `c` follow within the period: they wait for its end, and go out as one write.
    model.next();
    const b = await arrivalOf('"delta":"b"');
    expect(b.text).toContain('"delta":"c"');
    expect(b.at - a.at).toBeGreaterThanOrEqual(FLUSH_SECONDS * 1000 - 20);
    // The run ends within the next period: its last events go out at once.
    asked = performance.now();
    model.next();
    const end = await arrivalOf('"event":"run.completed"');
    expect(end.at - asked).toBeLessThan(FLUSH_SECONDS * 500);
    await reading;
  });
});
