import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Model } from '../../src/models/model.js';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';
import { deferred, type OrsTestRig, startOrsTestRig } from '../support/ors-test-rig.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { textBlock } from '../support/scripted-ors-environment.js';
import { readRecords } from './rollout-rig.js';

/** A model whose first turn makes the one call `name(args)`. */
function callingModel(name: string, args: Record<string, unknown>): Model {
  return scriptedProvider({ one: [{ toolCalls: [{ name, arguments: JSON.stringify(args) }] }] }).create('one');
}

describe('a rollout whose tool call is cut off mid-call', () => {
  let rig: OrsTestRig | undefined;
  let dir: string | undefined;
  // Holds the slow tool; released after each test so the server can answer and close.
  let gate = deferred();
  afterEach(async () => {
    gate.resolve();
    gate = deferred();
    await rig?.close();
    rig = undefined;
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  async function playOne(model: Model, timeoutMs = 30_000) {
    dir = mkdtempSync(join(tmpdir(), 'interrupted-'));
    const out = join(dir, 'out.jsonl');
    await generateRollouts({
      ors: rig!.client,
      model,
      env: 'arith',
      split: 'train',
      tasks: [0],
      out,
      retries: 0,
      timeoutMs,
    });
    const records = readRecords(out);
    expect(records).toHaveLength(1);
    return records[0]!;
  }

  it('counts the call whose result was lost in its step and in metrics.tool_calls and failed_tool_calls', async () => {
    rig = await startOrsTestRig({ server: { taskCache: false } });
    rig.proxy.inject({ path: '/arith/call', fault: { type: 'drop-after-task-id' } });
    const record = await playOne(callingModel('submit', { answer: 5 }));

    expect(record).toMatchObject({ status: 'failed', stop_reason: 'error', error: { code: 'ors_result_lost' } });
    expect(record.metrics).toMatchObject({ tool_calls: 1, failed_tool_calls: 1 });
    expect(record.steps[0]!.tool_calls).toEqual([
      expect.objectContaining({
        tool_call_id: 'call_0_0',
        name: 'submit',
        error: true,
        reward: null,
        error_message: expect.stringMatching(/was lost/),
      }),
    ]);
    expect(record.rewards.map((reward) => reward.tool_call_id)).toEqual(['call_0_0']);
  });

  it('counts a slow call cut by the time limit in its step and in metrics.tool_calls and failed_tool_calls', async () => {
    rig = await startOrsTestRig();
    rig.server.defineTool('arith', 'slow', {
      async run() {
        await gate.promise;
        return { ok: true, output: { blocks: [textBlock('too late')], reward: 1, finished: true } };
      },
    });
    const record = await playOne(callingModel('slow', {}), 300);

    expect(record).toMatchObject({ status: 'failed', stop_reason: 'timeout', error: { code: 'rollout_timeout' } });
    expect(record.metrics).toMatchObject({ tool_calls: 1, failed_tool_calls: 1 });
    expect(record.steps[0]!.tool_calls).toEqual([
      expect.objectContaining({
        tool_call_id: 'call_0_0',
        name: 'slow',
        error: true,
        error_message: expect.stringMatching(/^Cancelled: .*time limit/),
      }),
    ]);
    expect(record.rewards.map((reward) => reward.tool_call_id)).toEqual(['call_0_0']);
    expect(record.messages.filter((message) => message.role === 'tool')).toHaveLength(1);
  });
});
