import { afterEach, describe, expect, it } from 'vitest';
import type { Model, ModelPart, ModelRequest } from '../../src/models/model.js';
import { EventDetailSchema } from '../../src/protocol/event-detail.js';
import { RunEventSchema } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { toTrajectoryRecord } from '../../src/rollouts/to-trajectory-record.js';
import { foldEpisode, type LogEntry, NOT_RUN_TEXT } from '../../src/runs/episode-fold.js';
import type { EpisodeRecord } from '../../src/runs/episode-record.js';
import { EventLog } from '../../src/runs/event-log.js';
import { RunCancelledError } from '../../src/runs/run-cancelled-error.js';
import { runEpisode } from '../../src/runs/run-episode.js';
import { deferred, type OrsTestRig, startOrsTestRig } from '../support/ors-test-rig.js';
import { textBlock } from '../support/scripted-ors-environment.js';

/** One turn of a model that streams exactly these parts. */
type Turn = ModelPart[];

/** A model that plays `turns` in order and records every request it was sent. */
function modelOf(turns: Turn[], requests: ModelRequest[] = []): Model {
  return {
    id: 'scripted:fold',
    async *stream(request) {
      // A copy: the episode keeps appending to the conversation it was sent.
      requests.push({ ...request, messages: structuredClone(request.messages) });
      const turn = turns[requests.length - 1];
      if (!turn) throw new Error('the script has no more turns');
      yield* turn;
    },
  };
}

const call = (id: string, name: string, args: unknown): ModelPart => ({
  type: 'tool-call',
  call: { id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});
const usage: ModelPart = { type: 'usage', usage: { inputTokens: 12, outputTokens: 7 } };

/** The log's entries as a store holds them (JSON), read back and validated. */
function replay(log: EventLog): LogEntry[] {
  return log.entries.map((entry) => ({
    event: RunEventSchema.parse(JSON.parse(entry.json)),
    detail: entry.detail && EventDetailSchema.parse(JSON.parse(JSON.stringify(entry.detail))),
  }));
}

describe('the event log is the only record of an episode', () => {
  let rig: OrsTestRig | undefined;
  const gate = deferred();
  afterEach(async () => {
    gate.resolve();
    await rig?.close();
    rig = undefined;
  });

  async function play(
    model: Model,
    options: { signal?: AbortSignal; toolOutputEventChars?: number } = {},
  ): Promise<{ record: EpisodeRecord; log: EventLog }> {
    const log = new EventLog('run_fold');
    const record = await runEpisode({
      ors: rig!.client,
      model,
      env: 'arith',
      task: { split: 'train', index: 1 },
      input: [{ role: 'user', content: [{ type: 'text', text: 'Be brief.' }] }],
      instructions: 'You add numbers.',
      sampling: { temperature: 0.3, seed: 7, extra_body: { return_token_ids: true } },
      maxTurns: 4,
      rewardReduction: 'sum',
      toolOutputEventChars: options.toolOutputEventChars ?? 40,
      signal: options.signal ?? new AbortController().signal,
      emit: (event, detail) => log.append(event, detail),
    });
    return { record, log };
  }

  it('rebuilds, from the replayed log alone, the record and trajectory the live episode produced — conversation, tools, whole outputs, token data, timing', async () => {
    rig = await startOrsTestRig();
    const picture = 'iVBORw0KGgo=';
    rig.server.defineTool('arith', 'look', {
      run: () => ({
        ok: true,
        output: {
          blocks: [
            textBlock('a long look: '.repeat(10)),
            { type: 'image', mimeType: 'image/png', data: picture, detail: null },
          ],
          metadata: { seen: 2 },
          reward: 0.25,
        },
      }),
    });
    const requests: ModelRequest[] = [];
    const model = modelOf(
      [
        [
          { type: 'reasoning-delta', delta: 'Look first.' },
          { type: 'reasoning', block: { text: 'Look first.', providerData: { signature: 'sig-1' } } },
          { type: 'text-delta', delta: 'Looking ' },
          { type: 'text-delta', delta: 'now.' },
          call('c1', 'look', {}),
          call('c2', 'hint', {}),
          call('c3', 'missing', {}),
          call('c4', 'look', 'not json'),
          usage,
          { type: 'token-data', data: { promptTokenIds: [1, 2, 3], tokenIds: [4, 5], logprobs: [-0.1, -0.2] } },
          { type: 'finish', reason: 'tool_calls', rawReason: 'tool_use' },
        ],
        [
          { type: 'text-delta', delta: 'It is 12.' },
          call('c5', 'submit', { answer: 12 }),
          call('c6', 'look', {}),
          usage,
          { type: 'finish', reason: 'tool_calls' },
        ],
      ],
      requests,
    );
    const { record, log } = await play(model);
    const events = replay(log);
    assertEventOrder(events.map((entry) => entry.event));

    expect(foldEpisode(events)).toEqual(record);
    const context = {
      rolloutId: 'ro_1',
      rollout: { key: 'arith/train/1#0', groupId: 'arith/train/1', index: 1, sample: 0, seed: 7 },
      attempt: 1,
      split: 'train',
      spec: null,
      sampling: { temperature: 0.3 },
      rewardReduction: 'sum' as const,
      timeoutMs: 60_000,
    };
    expect(toTrajectoryRecord(foldEpisode(events), context)).toEqual(toTrajectoryRecord(record, context));

    // The record holds what the events alone never showed before: each model call saw exactly the
    // folded conversation, a cut output is whole, images and metadata are there, unrun calls answered.
    expect(requests[1]!.messages).toEqual(record.messages.slice(0, requests[1]!.messages.length));
    expect(requests[0]!.messages.map((message) => message.role)).toEqual(['system', 'user', 'user']);
    expect(record.tools.map((tool) => tool.name).sort()).toEqual(['hint', 'look', 'submit']);
    const cut = log.events().find((event) => event.event === 'tool.completed' && event.tool_call_id === 'c1');
    expect(cut).toMatchObject({ truncated: true, output: 'a long look: '.repeat(10).slice(0, 40) });
    const [look, hint, missing, badJson] = record.steps[0]!.toolCalls;
    expect(look).toMatchObject({
      metadata: { seen: 2 },
      reward: 0.25,
      content: [
        { type: 'text', text: 'a long look: '.repeat(10) },
        { type: 'image', mimeType: 'image/png', data: picture },
      ],
    });
    expect(hint).toMatchObject({ error: false, content: [{ type: 'text', text: 'It is more than 5.' }] });
    expect(missing).toMatchObject({ error: true, errorMessage: expect.stringContaining('no tool named "missing"') });
    expect(badJson).toMatchObject({ error: true, arguments: 'not json' });
    expect(record.steps[0]).toMatchObject({
      rawFinishReason: 'tool_use',
      reasoning: 'Look first.',
      tokenData: { promptTokenIds: [1, 2, 3], tokenIds: [4, 5], logprobs: [-0.1, -0.2] },
    });
    expect(record.messages[3]).toMatchObject({
      role: 'assistant',
      content: 'Looking now.',
      reasoning: [{ text: 'Look first.', providerData: { signature: 'sig-1' } }],
    });
    expect(record.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'c6',
      toolName: 'look',
      content: [{ type: 'text', text: NOT_RUN_TEXT }],
      isError: true,
    });
    expect(record).toMatchObject({
      sampling: { temperature: 0.3, seed: 7, extra_body: { return_token_ids: true } },
      reward: 1.25,
      finished: true,
      turns: 2,
      output: 'It is 12.',
      end: { status: 'completed', stopReason: 'finished' },
    });
    expect(record.timing.endedAt).toBeGreaterThanOrEqual(record.timing.startedAt);
    expect(record.timing.envMs).toBeGreaterThan(0);
    expect(rig.server.executions('look')).toBe(1);
  });

  it('rebuilds the record of an episode that failed mid-stream or was cancelled mid-call', async () => {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'slow', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [textBlock('late')] } };
      },
    });
    const broken: Model = {
      id: 'scripted:broken',
      // biome-ignore lint/correctness/useYield: a model that fails after streaming a little
      async *stream() {
        throw new Error('the model broke');
      },
    };
    const failed = await play(broken);
    expect(failed.record.end).toMatchObject({ status: 'failed', code: 'internal_error' });
    expect(foldEpisode(replay(failed.log))).toEqual(failed.record);

    const controller = new AbortController();
    const playing = play(modelOf([[call('s1', 'slow', {}), usage, { type: 'finish', reason: 'tool_calls' }]]), {
      signal: controller.signal,
    });
    await rig.server.waitForExecution('slow');
    controller.abort(new RunCancelledError('client'));
    const cancelled = await playing;
    expect(cancelled.record.end).toEqual({ status: 'cancelled', reason: 'client' });
    expect(cancelled.record.steps[0]!.toolCalls).toEqual([expect.objectContaining({ id: 's1', error: true })]);
    expect(foldEpisode(replay(cancelled.log))).toEqual(cancelled.record);
  });

  it('keeps the published events as they were: detail is stored beside them, never in their JSON', async () => {
    rig = await startOrsTestRig();
    const { log } = await play(
      modelOf([[call('c1', 'submit', { answer: 12 }), usage, { type: 'finish', reason: 'tool_calls' }]]),
    );
    expect(log.events().map((event) => event.event)).toEqual([
      'run.started',
      'prompt.available',
      'turn.completed',
      'tool.started',
      'tool.completed',
      'run.completed',
    ]);
    for (const entry of log.entries) {
      expect(entry.json).toBe(JSON.stringify(entry.event));
      expect(Object.keys(entry.event)).not.toContain('detail');
    }
    // The prompt the model is sent (after the instructions) is published as text, the context riding on it.
    expect(log.entries[1]!.detail).toEqual({ context: expect.any(Object) });
    const prompt = log.entries[1]!.detail?.context?.messages[1];
    const [part] = Array.isArray(prompt?.content) ? prompt.content : [];
    expect(prompt?.role).toBe('user');
    expect(log.entries[1]!.event).toEqual({
      ...log.entries[1]!.event,
      event: 'prompt.available',
      text: part?.type === 'text' ? part.text : 'a text part',
    });
    expect(log.entries[2]!.detail).toEqual({ turn: expect.any(Object) });
    expect(log.entries[4]!.detail).toEqual({ tool: { metadata: null } });
    expect(log.entries[5]!.detail).toEqual({ timing: expect.any(Object) });
  });

  it('keeps no detail for a run cancelled before it began, whose log is run.started → run.cancelled', async () => {
    rig = await startOrsTestRig();
    const controller = new AbortController();
    controller.abort(new RunCancelledError('shutdown'));
    const { record, log } = await play(modelOf([]), { signal: controller.signal });
    expect(log.events().map((event) => event.event)).toEqual(['run.started', 'run.cancelled']);
    expect(foldEpisode(replay(log))).toEqual(record);
    expect(record).toMatchObject({ messages: [], tools: [], steps: [], timing: { modelMs: 0, envMs: 0 } });
  });
});
