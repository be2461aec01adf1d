import { afterEach, describe, expect, it } from 'vitest';
import type { Model, ModelPart, ModelRequest } from '../../src/models/model.js';
import type { RunEventOf } from '../../src/protocol/run-events.js';
import { ApprovalPolicySchema } from '../../src/protocol/run-request.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { EventLog } from '../../src/runs/event-log.js';
import { runEpisode } from '../../src/runs/run-episode.js';
import { RunInbox } from '../../src/runs/run-inbox.js';
import { type OrsTestRig, startOrsTestRig } from '../support/ors-test-rig.js';
import { textBlock } from '../support/scripted-ors-environment.js';

/**
 * A turn runs at most `RUNBRIDGE_MAX_TOOL_CALLS_PER_TURN` tool calls (docs/protocol.md §1.6): each call
 * past it gets `tool.started` and a `tool.completed` with `error: true`, never reaches the ORS server
 * nor waits for approval, and the model is told why, as for a tool it does not have (§1.3).
 */

const CAP = 3;
const CALLS = 7;

function stormModel(requests: ModelRequest[]): Model {
  return {
    id: 'scripted:storm',
    async *stream(request) {
      requests.push({ ...request, messages: structuredClone(request.messages) });
      if (requests.length === 1) {
        for (let index = 0; index < CALLS; index++) {
          const args = JSON.stringify({ expression: `${index} + 1` });
          yield { type: 'tool-call', call: { id: `c${index}`, name: 'calculator', arguments: args } } as ModelPart;
        }
      } else {
        yield { type: 'text-delta', delta: 'Fewer, then.' };
      }
      yield { type: 'finish', reason: requests.length === 1 ? 'tool_calls' : 'stop' };
    },
  };
}

describe('runEpisode and a turn with more tool calls than a turn may run', () => {
  let rig: OrsTestRig | undefined;
  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  async function play(withApproval: boolean) {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'calculator', { run: () => ({ ok: true, output: { blocks: [textBlock('2')] } }) });
    const requests: ModelRequest[] = [];
    const log = new EventLog('run_cap');
    const inbox = new RunInbox();
    const record = await runEpisode({
      ors: rig.client,
      model: stormModel(requests),
      env: 'arith',
      task: { split: 'train', index: 0 },
      maxTurns: 2,
      toolOutputEventChars: 1000,
      caps: { maxToolCallsPerTurn: CAP },
      ...(withApproval
        ? { inbox, approval: ApprovalPolicySchema.parse({ tools: '*', timeout_seconds: 0.01, on_timeout: 'approve' }) }
        : {}),
      signal: new AbortController().signal,
      emit: (event, detail) => log.append(event, detail),
    });
    const events = log.events();
    assertEventOrder(events);
    return { record, events, requests };
  }

  it.each([
    ['without approvals', false],
    ['with every call held for approval', true],
  ])(
    'runs the first calls, answers the rest with an error that says why, and tells the model (%s)',
    async (_what, withApproval) => {
      const { record, events, requests } = await play(withApproval);

      expect(rig!.server.executions('calculator')).toBe(CAP);
      const held = events.filter((event) => event.event === 'tool.approval_required');
      expect(held.map((event) => event.tool_call_id)).toEqual(withApproval ? ['c0', 'c1', 'c2'] : []);
      const completed = events.filter(
        (event): event is RunEventOf<'tool.completed'> => event.event === 'tool.completed',
      );
      expect(completed.map((event) => [event.tool_call_id, event.error])).toEqual([
        ['c0', false],
        ['c1', false],
        ['c2', false],
        ['c3', true],
        ['c4', true],
        ['c5', true],
        ['c6', true],
      ]);
      expect(completed[3]?.error_message).toMatch(
        /Not run:.*7 tool calls.*at most 3.*RUNBRIDGE_MAX_TOOL_CALLS_PER_TURN/,
      );
      expect(completed.map((event) => event.call_index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
      // The model's next turn reads every call's answer, the refusals included.
      const answers = requests[1]!.messages.filter((message) => message.role === 'tool');
      expect(answers).toHaveLength(CALLS);
      expect(answers.slice(CAP).every((message) => message.isError)).toBe(true);
      expect(record.end).toEqual({ status: 'completed', stopReason: 'no_tool_calls' });
    },
  );
});
