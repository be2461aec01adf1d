import { afterEach, describe, expect, it } from 'vitest';
import type { Model, ModelPart } from '../../src/models/model.js';
import { RunEventFactory } from '../../src/protocol/event-factory.js';
import type { RunEventInput, RunEventOf } from '../../src/protocol/run-events.js';
import { RunCancelledError } from '../../src/runs/run-cancelled-error.js';
import { runEpisode } from '../../src/runs/run-episode.js';
import { deferred, type OrsTestRig, startOrsTestRig } from '../support/ors-test-rig.js';
import { textBlock } from '../support/scripted-ors-environment.js';
import { type SourceTimerTracker, trackSourceTimers } from '../support/track-source-timers.js';

/** A model that plays `turns` (one list of parts per turn), then answers "done". */
function partsModel(turns: ModelPart[][]): Model {
  return {
    id: 'parts',
    async *stream(request) {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      const parts = turns[turn] ?? [{ type: 'text-delta', delta: 'done' }];
      for (const part of parts) yield part;
      yield { type: 'finish', reason: parts.some((part) => part.type === 'tool-call') ? 'tool_calls' : 'stop' };
    },
  };
}

const piece = (id: string, name: string, delta: string): ModelPart => ({ type: 'tool-call-delta', id, name, delta });
const whole = (id: string, name: string, args: string): ModelPart => ({
  type: 'tool-call',
  call: { id, name, arguments: args },
});

function only<T extends RunEventInput['event']>(events: RunEventInput[], type: T): Array<Omit<RunEventOf<T>, 'seq'>> {
  return events.filter((event) => event.event === type) as never;
}

describe('runEpisode and the events that show a tool call forming and running', () => {
  let rig: OrsTestRig | undefined;
  let timers: SourceTimerTracker | undefined;
  let gate = deferred();
  afterEach(async () => {
    gate.resolve();
    gate = deferred();
    timers?.restore();
    timers = undefined;
    await rig?.close();
    rig = undefined;
  });
  /** The armed timers of tool.progress reports (src/runs/tool-progress.ts). */
  const progressTimers = () => (timers?.pending() ?? []).filter((site) => site.includes('/tool-progress.'));

  async function play(
    model: Model,
    options: { toolProgressMs?: number; signal?: AbortSignal; emit?: (event: RunEventInput) => void } = {},
  ): Promise<RunEventInput[]> {
    const events: RunEventInput[] = [];
    const factory = new RunEventFactory('run_test');
    await runEpisode({
      ors: rig!.client,
      model,
      env: 'arith',
      task: { split: 'train', index: 0 },
      maxTurns: 3,
      toolOutputEventChars: 1000,
      toolProgressMs: options.toolProgressMs,
      signal: options.signal ?? new AbortController().signal,
      emit: (event) => {
        options.emit?.(event);
        events.push(event);
        return factory.build(event);
      },
    });
    return events;
  }

  it("emits each streamed piece as tool.arguments.delta before the call's tool.started, under one call_index", async () => {
    rig = await startOrsTestRig();
    const events = await play(
      partsModel([
        [
          { type: 'text-delta', delta: 'Two calls.' },
          piece('c1', 'hint', ''),
          piece('c2', 'submit', ''),
          piece('c1', 'hint', '{}'),
          piece('c2', 'submit', '{"answer"'),
          // An empty piece after the announcement says nothing and is dropped.
          piece('c2', 'submit', ''),
          piece('c2', 'submit', ':5}'),
          whole('c1', 'hint', '{}'),
          whole('c2', 'submit', '{"answer":5}'),
        ],
      ]),
    );
    expect(events.map((event) => event.event)).toEqual([
      'run.started',
      'prompt.available',
      'message.delta',
      'tool.arguments.delta',
      'tool.arguments.delta',
      'tool.arguments.delta',
      'tool.arguments.delta',
      'tool.arguments.delta',
      'turn.completed',
      'tool.started',
      'tool.completed',
      'tool.started',
      'tool.completed',
      'run.completed',
    ]);
    expect(only(events, 'tool.arguments.delta')).toEqual([
      { event: 'tool.arguments.delta', tool: 'hint', tool_call_id: 'c1', delta: '', turn: 1, call_index: 0 },
      { event: 'tool.arguments.delta', tool: 'submit', tool_call_id: 'c2', delta: '', turn: 1, call_index: 1 },
      { event: 'tool.arguments.delta', tool: 'hint', tool_call_id: 'c1', delta: '{}', turn: 1, call_index: 0 },
      { event: 'tool.arguments.delta', tool: 'submit', tool_call_id: 'c2', delta: '{"answer"', turn: 1, call_index: 1 },
      { event: 'tool.arguments.delta', tool: 'submit', tool_call_id: 'c2', delta: ':5}', turn: 1, call_index: 1 },
    ]);
    expect(only(events, 'tool.started').map((event) => [event.tool_call_id, event.call_index])).toEqual([
      ['c1', 0],
      ['c2', 1],
    ]);
    expect(only(events, 'tool.completed').map((event) => [event.tool_call_id, event.call_index])).toEqual([
      ['c1', 0],
      ['c2', 1],
    ]);
  });

  it('gives a call that arrives whole the next index, and counts an announced call that never ran', async () => {
    rig = await startOrsTestRig();
    const events = await play(
      partsModel([
        [whole('w1', 'hint', '{}')],
        [
          piece('s1', 'submit', '{"answer":5}'),
          piece('s2', 'hint', ''),
          whole('s1', 'submit', '{"answer":5}'),
          // Never sent: the submit before it finishes the episode.
          whole('s2', 'hint', '{}'),
        ],
      ]),
    );
    expect(only(events, 'tool.arguments.delta').map((event) => [event.tool_call_id, event.call_index])).toEqual([
      ['s1', 1],
      ['s2', 2],
    ]);
    expect(only(events, 'tool.started').map((event) => [event.tool_call_id, event.call_index])).toEqual([
      ['w1', 0],
      ['s1', 1],
    ]);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'finished' });
  });

  it('reports tool.progress with the seconds elapsed while a slow call runs, and none after it, with no timer left', async () => {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'slow', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [textBlock('done at last')], reward: 1, finished: true } };
      },
    });
    timers = trackSourceTimers();
    let progressed = 0;
    const threeReports = deferred();
    const played = play(partsModel([[whole('c1', 'slow', '{}')]]), {
      toolProgressMs: 20,
      emit: (event) => {
        if (event.event === 'tool.progress' && ++progressed === 3) threeReports.resolve();
      },
    });
    await threeReports.promise;
    gate.resolve();
    const events = await played;
    // No timer is left armed, so nothing more can come: the timer went with the call.
    expect(timers.pending()).toEqual([]);

    const types = events.map((event) => event.event);
    const progress = only(events, 'tool.progress');
    expect(progress.length).toBe(progressed);
    expect(types.indexOf('tool.progress')).toBe(types.indexOf('tool.started') + 1);
    expect(types.lastIndexOf('tool.progress')).toBe(types.indexOf('tool.completed') - 1);
    expect(progress[0]).toMatchObject({ tool: 'slow', tool_call_id: 'c1', turn: 1, call_index: 0 });
    const elapsed = progress.map((event) => event.elapsed);
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b));
    expect(elapsed[0]).toBeGreaterThanOrEqual(0.015);
    expect(only(events, 'tool.completed')[0]!.duration).toBeGreaterThanOrEqual(elapsed.at(-1)!);
  });

  it('stops the reports when the run is cancelled while the call runs', async () => {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'slow', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [textBlock('too late')] } };
      },
    });
    timers = trackSourceTimers();
    const controller = new AbortController();
    const reported = deferred();
    const played = play(partsModel([[whole('c1', 'slow', '{}')]]), {
      toolProgressMs: 10,
      signal: controller.signal,
      emit: (event) => {
        if (event.event === 'tool.progress') reported.resolve();
      },
    });
    await reported.promise;
    controller.abort(new RunCancelledError('client'));
    const events = await played;
    expect(timers.pending()).toEqual([]);
    const types = events.map((event) => event.event);
    expect(types.slice(-2)).toEqual(['tool.completed', 'run.cancelled']);
    expect(types.lastIndexOf('tool.progress')).toBeLessThan(types.indexOf('tool.completed'));
  });

  it('stops reporting, and lets the call finish, when an emit of tool.progress throws', async () => {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'slow', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [textBlock('done')], reward: 1, finished: true } };
      },
    });
    timers = trackSourceTimers();
    let attempts = 0;
    const refused = deferred();
    const played = play(partsModel([[whole('c1', 'slow', '{}')]]), {
      toolProgressMs: 10,
      emit: (event) => {
        if (event.event !== 'tool.progress') return;
        attempts++;
        refused.resolve();
        throw new Error('the event log is full');
      },
    });
    await refused.promise;
    // The call still runs, and the reports' timer is already gone: no second attempt can come.
    expect(progressTimers()).toEqual([]);
    gate.resolve();
    const events = await played;
    expect(attempts).toBe(1);
    expect(timers.pending()).toEqual([]);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });
  });

  it('sends no tool.progress without a period (rollouts)', async () => {
    rig = await startOrsTestRig();
    const running = deferred();
    rig.server.defineTool('arith', 'slow', {
      async run() {
        running.resolve();
        await gate.promise;
        return { ok: true, output: { blocks: [textBlock('done')], finished: true } };
      },
    });
    timers = trackSourceTimers();
    const played = play(partsModel([[whole('c1', 'slow', '{}')]]));
    await running.promise;
    // While the call runs, no timer for reports is armed.
    expect(progressTimers()).toEqual([]);
    gate.resolve();
    const events = await played;
    expect(only(events, 'tool.progress')).toEqual([]);
    expect(only(events, 'tool.completed')).toHaveLength(1);
  });
});
