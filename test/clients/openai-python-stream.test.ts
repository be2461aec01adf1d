import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeLikeOpenAiPython, streamLikeOpenAiPython } from '../support/openai-python-sse.js';
import { parseSseText } from '../support/parse-sse-text.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { deferred } from '../support/test-environment.js';

/** Resolves once `body` has carried a keep-alive comment, and stops reading it. */
async function untilKeepAlive(body: ReadableStream<Uint8Array>): Promise<void> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    if (/^: keepalive$/m.test(text)) break;
  }
}

/**
 * Our streams read the way openai-python reads them (`test/support/openai-python-sse.ts`, a port of
 * its decoder; Debian has no `python3-openai` and this machine reaches no other package index). It
 * dispatches every frame that has any field, and keeps the last `id:` across frames, so a frame
 * without data — a lone `retry:`, or a keep-alive after an id — reaches it as an empty message.
 */
describe('streams read by openai-python', () => {
  let bridge: TestBridge;
  const json = { 'Content-Type': 'application/json' };
  const slot = deferred();

  beforeAll(async () => {
    bridge = await startTestBridge(
      { RUNBRIDGE_KEEPALIVE_SECONDS: '0.02', RUNBRIDGE_DEFAULT_ENV: 'probe', RUNBRIDGE_MAX_CONCURRENT_RUNS: '1' },
      {
        environments: [probeEnvironment],
        providers: [
          scriptedProvider({
            blocker: [{ gate: slot.promise, text: 'done' }],
            sleepy: [
              { text: 'Let me rest. ', toolCalls: [{ name: 'sleep', arguments: '{"ms":150}' }] },
              { text: 'Rested.' },
            ],
          }),
        ],
      },
    );
  });
  afterAll(() => bridge.shutdown());

  it('reads a streamed chat completion of a queued run: keep-alives first, then chunks to [DONE]', async () => {
    const blocker = await bridge.startRun({ model: 'scripted:blocker' });
    const response = await bridge.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ model: 'scripted:sleepy', stream: true, messages: [{ role: 'user', content: 'Rest.' }] }),
    });
    expect(response.status).toBe(200);
    // Queued behind the blocker: the stream is open and hears keep-alives only until the run starts.
    const runId = response.headers.get('x-run-id')!;
    expect(((await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as { status: string }).status).toBe('queued');
    // The blocker ends once a stream of the queued run has heard a keep-alive.
    await untilKeepAlive((await bridge.fetch(`/v1/runs/${runId}/events`)).body!);
    slot.resolve(undefined);

    const chunks = (await streamLikeOpenAiPython(response.body!)) as Array<{
      object: string;
      choices: Array<{ delta: { content?: string }; finish_reason: string | null }>;
    }>;
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta.content ?? '')).join('')).toBe(
      'Let me rest. \n\nRested.',
    );
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    await bridge.readEvents(blocker);
  });

  it.each(['events', 'openai', 'combined', 'ag-ui', 'ai-sdk'])(
    'gets no empty message from format=%s, keep-alives between frames with ids included',
    async (format) => {
      const runId = await bridge.startRun({ model: 'scripted:sleepy' });
      const response = await bridge.fetch(`/v1/runs/${runId}/events?format=${format}`);
      const raw = await response.text();
      // The slow tool made the bridge write keep-alives after frames that carried ids (not in openai).
      expect(raw).toContain(': keepalive');
      expect(raw.startsWith('retry: 3000\n')).toBe(true);

      const messages = await decodeLikeOpenAiPython(new Response(raw).body!);
      // Exactly what a spec-following parser dispatches: no extra message from a data-less frame.
      expect(messages.map((message) => message.data)).toEqual(parseSseText(raw).map((message) => message.data));
      for (const { data } of messages) {
        expect(data).not.toBe('');
        if (data !== '[DONE]') expect(() => JSON.parse(data)).not.toThrow();
      }
      expect(messages[0]?.retry).toBe(3000);
    },
  );
});
