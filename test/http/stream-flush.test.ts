import { afterEach, describe, expect, it } from 'vitest';
import type { ModelPart } from '../../src/models/model.js';
import { singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * How often a run's events are written to its subscribers (`RUNBRIDGE_STREAM_FLUSH_SECONDS`,
 * docs/protocol.md §3.8): the first event after a quiet period at once, the events that follow it within
 * the period together at its end, and the terminal event at once. The period's length is checked on a
 * fake clock in test/runs/event-log.test.ts; here it is longer than any test waits, so what goes out
 * before its end went out at once and what it holds comes with the terminal event.
 */

const FLUSH_SECONDS = 600;

/** A model that waits for {@link release}, then says `a`, `b` and `c` and ends. */
function releasedModel() {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const provider = singleModelProvider('released', async function* ({ signal }): AsyncGenerator<ModelPart> {
    signal.addEventListener('abort', release);
    await released;
    signal.throwIfAborted();
    for (const delta of ['a', 'b', 'c']) yield { type: 'text-delta', delta };
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 3 } };
    yield { type: 'finish', reason: 'stop' };
  });
  return { provider, release: () => release() };
}

/** Reads a response body chunk by chunk, calling `onChunk` with all read so far after each. */
async function readChunks(body: ReadableStream<Uint8Array>, chunks: string[], onChunk: () => void): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    chunks.push(decoder.decode(chunk, { stream: true }));
    onChunk();
  }
}

const bridges: TestBridge[] = [];
/** Lets a model that is still waiting end its run, so shutting down need not wait out its grace period. */
const releases: Array<() => void> = [];
afterEach(async () => {
  for (const release of releases.splice(0)) release();
  for (const bridge of bridges.splice(0)) await bridge.shutdown();
});

describe("a run's event stream", () => {
  it('writes the first event after a quiet period at once, holds those that follow within the period, and writes them with the terminal event at once, as one write', async () => {
    const model = releasedModel();
    releases.push(model.release);
    const bridge = await startTestBridge(
      { RUNBRIDGE_MODEL: 'released', RUNBRIDGE_STREAM_FLUSH_SECONDS: String(FLUSH_SECONDS) },
      { providers: [model.provider] },
    );
    bridges.push(bridge);
    const runId = await bridge.startRun({ env: 'arith' });
    const response = await fetch(`${bridge.url}/v1/runs/${runId}/events`);
    const chunks: string[] = [];
    let firstChunk: () => void = () => undefined;
    const first = new Promise<void>((resolve) => (firstChunk = resolve));
    const reading = readChunks(response.body!, chunks, () => firstChunk());
    // The run's first event goes out at once, long before the period ends.
    await first;
    expect(chunks[0]).toContain('"event":"run.started"');
    expect(chunks.join('')).not.toContain('"event":"run.completed"');
    // The model's deltas follow within the period: they wait, and go out with the run's end.
    model.release();
    await reading;
    const last = chunks.at(-1)!;
    for (const text of ['"delta":"a"', '"delta":"b"', '"delta":"c"', '"event":"run.completed"']) {
      expect(last).toContain(text);
    }
    expect(chunks.length).toBeLessThanOrEqual(2);
  });
});
