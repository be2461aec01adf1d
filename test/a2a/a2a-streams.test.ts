import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.js';
import { readScrape } from '../support/read-scrape.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { type RawFrame, readFrames, rpc, streamingSend } from './a2a-support.js';

/**
 * A2A streams as raw SSE (docs/a2a.md, "Resuming a stream"): every frame answers the request's id,
 * the last frame of each run event carries its seq as the SSE `id`, and `SubscribeToTask` with
 * `Last-Event-ID` resumes a dropped stream with nothing lost and nothing twice. Also what an operator
 * sees of A2A: its metric labels, the caller's trace continued into the run, the card behind a proxy.
 */

const ARITH = { env: 'arith', model: 'offline', task: { split: 'test', index: 1 } };
const v1 = { 'A2A-Version': '1.0' };
const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';

let receiver: OtlpReceiver;
let bridge: TestBridge;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  bridge = await startTestBridge({
    RUNBRIDGE_DEFAULT_ENV: 'arith',
    RUNBRIDGE_PUBLIC_URL: 'https://agents.example.com/bridge/',
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  });
});
afterAll(async () => {
  await bridge?.shutdown();
  await receiver?.close();
});

/** The stream events of frames (their `result`s), past the task each stream starts with. */
function updatesOf(frames: RawFrame[]): unknown[] {
  return frames.slice(1).map((frame) => frame.data.result);
}

/** The task id of a stream, from the task it starts with. */
function taskIdOf(frames: RawFrame[]): string {
  return (frames[0]!.data.result as { task: { id: string } }).task.id;
}

async function subscribe(taskId: string, lastEventId: string, rpcId = 2): Promise<RawFrame[]> {
  const response = await rpc(
    bridge.url,
    { jsonrpc: '2.0', id: rpcId, method: 'SubscribeToTask', params: { id: taskId } },
    { ...v1, 'Last-Event-ID': lastEventId },
  );
  expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
  return readFrames(response);
}

describe('a dropped stream, resumed', () => {
  it.each([3, 6, 10])('loses nothing and repeats nothing when cut after %i frames', async (cut) => {
    const dropped = new AbortController();
    const response = await rpc(bridge.url, streamingSend('SendStreamingMessage', 1, ARITH), v1, {
      signal: dropped.signal,
    });
    const received = await readFrames(response, cut);
    dropped.abort();
    expect(received.every((frame) => frame.data.id === 1 && frame.data.jsonrpc === '2.0')).toBe(true);
    const taskId = taskIdOf(received);
    // What a client keeps: the frames up to the last one with an id (an event's frames come whole).
    const kept = received.slice(0, received.findLastIndex((frame) => frame.id !== undefined) + 1);
    const lastEventId = kept.at(-1)!.id!;

    const resumed = await subscribe(taskId, lastEventId);
    expect(resumed.every((frame) => frame.data.id === 2)).toBe(true);
    // The task the resumed stream starts with is the task as it stood at the cursor.
    expect(resumed[0]!.id).toBe(lastEventId);
    const whole = await subscribe(taskId, '-1', 3);
    expect([...updatesOf(kept), ...updatesOf(resumed)]).toEqual(updatesOf(whole));
    const last = whole.at(-1)!.data.result as { statusUpdate: { status: { state: string } } };
    expect(last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('refuses a Last-Event-ID past the log, and without one a task that has ended', async () => {
    const frames = readFrames(await rpc(bridge.url, streamingSend('SendStreamingMessage', 1, ARITH), v1));
    const taskId = taskIdOf(await frames);
    const past = await rpc(
      bridge.url,
      { jsonrpc: '2.0', id: 2, method: 'SubscribeToTask', params: { id: taskId } },
      {
        ...v1,
        'Last-Event-ID': '99999',
      },
    );
    expect((await past.json()).error).toMatchObject({ code: -32602 });
    const ended = await rpc(
      bridge.url,
      { jsonrpc: '2.0', id: 3, method: 'SubscribeToTask', params: { id: taskId } },
      v1,
    );
    expect((await ended.json()).error).toMatchObject({ code: -32004 });
  });

  it('writes v0.3 frames with kind, and final on the last status update only', async () => {
    const frames = await readFrames(await rpc(bridge.url, streamingSend('message/stream', 'v', ARITH, true)));
    const results = frames.map(
      (frame) => frame.data.result as { kind: string; final?: boolean; status?: { state: string } },
    );
    expect(results[0]!.kind).toBe('task');
    const statuses = results.filter((result) => result.kind === 'status-update');
    expect(statuses.map((status) => status.final)).toEqual([...statuses.slice(1).map(() => false), true]);
    expect(statuses.at(-1)!.status!.state).toBe('completed');
    expect(results.some((result) => result.kind === 'artifact-update')).toBe(true);
  });
});

describe('what operators see', () => {
  it('names the endpoint under RUNBRIDGE_PUBLIC_URL in the card', async () => {
    const card = await (await fetch(`${bridge.url}/.well-known/agent-card.json`, { headers: v1 })).json();
    expect(card.supportedInterfaces[0].url).toBe('https://agents.example.com/bridge/v1/a2a');
    expect(card.securitySchemes).toBeUndefined();
  });

  it('continues a caller’s traceparent into the run the call starts', async () => {
    const response = await rpc(
      bridge.url,
      { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: streamingSend('', 0, ARITH).params },
      { ...v1, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
    );
    const { result } = await response.json();
    const run = await (await bridge.fetch(`/v1/runs/${result.task.id}`)).json();
    expect(run.trace_id).toBe(CALLER_TRACE);
  });

  it('counts A2A calls by method, version and outcome', async () => {
    await (await rpc(bridge.url, { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'run_nope' } }, v1)).json();
    await (await rpc(bridge.url, { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { id: 'run_nope' } })).json();
    await (await rpc(bridge.url, { jsonrpc: '2.0', id: 1, method: 'Whatever', params: {} }, v1)).json();
    const scrape = readScrape(await (await bridge.fetch('/metrics')).text());
    const calls = (labels: Record<string, string>) => scrape.value('runbridge_a2a_calls_total', labels);
    expect(calls({ method: 'GetTask', version: '1.0', outcome: 'TASK_NOT_FOUND' })).toBe(1);
    expect(calls({ method: 'tasks/get', version: '0.3', outcome: 'TASK_NOT_FOUND' })).toBe(1);
    expect(calls({ method: 'other', version: '1.0', outcome: 'METHOD_NOT_FOUND' })).toBe(1);
    expect(calls({ method: 'SendStreamingMessage', version: '1.0', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
  });
});
