import { afterEach, describe, expect, it } from 'vitest';
import type { Model } from '../../src/models/model.js';
import type { OrsClientOptions } from '../../src/ors/client/ors-client.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import type { EpisodeRecord } from '../../src/runs/episode-record.js';
import { EventLog } from '../../src/runs/event-log.js';
import { RunCancelledError } from '../../src/runs/run-cancelled-error.js';
import { runEpisode } from '../../src/runs/run-episode.js';
import type { OrsFault } from '../support/ors-fault-proxy.js';
import { deferred, type OrsTestRig, startOrsTestRig } from '../support/ors-test-rig.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { textBlock } from '../support/scripted-ors-environment.js';
import type { ScriptedOrsServerOptions } from '../support/scripted-ors-server.js';

/** A model whose first turn makes the one call `name(args)`. */
function callingModel(name: string, args: Record<string, unknown>): Model {
  return scriptedProvider({ one: [{ toolCalls: [{ name, arguments: JSON.stringify(args) }] }] }).create('one');
}

/**
 * The call shows up alike in the step, the rewards, the tool messages and the `tool.completed`
 * events: each lists exactly the calls sent, in order.
 */
function expectCallsAccountedFor(record: EpisodeRecord, events: RunEvent[]): void {
  const stepIds = record.steps.flatMap((step) => step.toolCalls.map((call) => call.id));
  expect(record.rewards.map((reward) => reward.tool_call_id)).toEqual(stepIds);
  expect(record.messages.flatMap((message) => (message.role === 'tool' ? [message.toolCallId] : []))).toEqual(stepIds);
  expect(events.flatMap((event) => (event.event === 'tool.completed' ? [event.tool_call_id] : []))).toEqual(stepIds);
}

describe('runEpisode with a tool call that never returns a result', () => {
  let rig: OrsTestRig | undefined;
  // Holds the slow tools; released after each test so the server can answer and close.
  let gate = deferred();
  afterEach(async () => {
    gate.resolve();
    gate = deferred();
    await rig?.close();
    rig = undefined;
  });

  async function play(
    model: Model,
    signal = new AbortController().signal,
  ): Promise<{ record: EpisodeRecord; events: RunEvent[] }> {
    const log = new EventLog('run_test');
    const record = await runEpisode({
      ors: rig!.client,
      model,
      env: 'arith',
      task: { split: 'train', index: 0 },
      maxTurns: 3,
      toolOutputEventChars: 1000,
      signal,
      emit: (event, detail) => log.append(event, detail),
    });
    return { record, events: log.events() };
  }

  it.each<[string, string, OrsFault, ScriptedOrsServerOptions, Partial<OrsClientOptions>, RegExp]>([
    [
      'the result is lost on reconnect',
      'ors_result_lost',
      { type: 'drop-after-task-id' },
      { taskCache: false },
      {},
      /was lost/,
    ],
    [
      'the stream is silent before the task is named',
      'ors_call_interrupted',
      { type: 'silent' },
      {},
      { callSilenceTimeoutMs: 200 },
      /may have started/,
    ],
  ])('keeps the failed call in its step when %s (%s)', async (_what, code, fault, server, client, message) => {
    rig = await startOrsTestRig({ server, client });
    rig.proxy.inject({ path: '/arith/call', fault });
    const { record, events } = await play(callingModel('submit', { answer: 5 }));

    expect(record.end).toMatchObject({ status: 'failed', code });
    expect(record.steps).toHaveLength(1);
    expect(record.steps[0]!.toolCalls).toEqual([
      expect.objectContaining({
        id: 'call_0_0',
        name: 'submit',
        error: true,
        reward: null,
        finished: false,
        errorMessage: expect.stringMatching(message),
      }),
    ]);
    expectCallsAccountedFor(record, events);
  });

  it.each([['client'], ['timeout']] as const)(
    'keeps a slow call in its step when the run is cancelled (%s) while it runs',
    async (reason) => {
      rig = await startOrsTestRig();
      rig.server.defineTool('arith', 'slow', {
        async run() {
          await gate.promise;
          return { ok: true, output: { blocks: [textBlock('too late')], reward: 1, finished: true } };
        },
      });
      const controller = new AbortController();
      const played = play(callingModel('slow', {}), controller.signal);
      await rig.server.waitForExecution('slow');
      controller.abort(new RunCancelledError(reason));
      const { record, events } = await played;

      expect(record.end).toEqual({ status: 'cancelled', reason });
      expect(record.steps[0]!.toolCalls).toEqual([
        expect.objectContaining({
          id: 'call_0_0',
          name: 'slow',
          error: true,
          errorMessage: `Cancelled: ${new RunCancelledError(reason).message}`,
        }),
      ]);
      expectCallsAccountedFor(record, events);
    },
  );

  it('keeps a slow call in its step when the session is lost while it runs', async () => {
    rig = await startOrsTestRig({ client: { pingIntervalMs: 20 } });
    rig.server.defineTool('arith', 'slow', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [textBlock('too late')] } };
      },
    });
    const played = play(callingModel('slow', {}));
    await rig.server.waitForExecution('slow');
    for (const sid of rig.server.openSessions()) rig.server.expireSession(sid);
    const { record, events } = await played;

    expect(record.end).toMatchObject({ status: 'failed', code: 'ors_session_lost' });
    expect(record.steps[0]!.toolCalls).toEqual([
      expect.objectContaining({ id: 'call_0_0', name: 'slow', error: true, errorMessage: expect.any(String) }),
    ]);
    expectCallsAccountedFor(record, events);
  });
});
