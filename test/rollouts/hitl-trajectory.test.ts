import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_OWNER } from '../../src/http/authenticate.js';
import { EXPORT_FORMATS, exportRollouts } from '../../src/rollouts/export/export-rollouts.js';
import { toTrajectoryRecord } from '../../src/rollouts/to-trajectory-record.js';
import { type TrajectoryRecord, TrajectoryRecordSchema } from '../../src/rollouts/trajectory-schema.js';
import { foldEpisode } from '../../src/runs/episode-fold.js';
import {
  decide,
  echo,
  echoBothThen,
  eventsMatching,
  ofType,
  sendMessage,
  startHitlBridge,
} from '../hitl/hitl-support.js';
import { scriptedProvider } from '../support/scripted-model.js';
import type { TestBridge } from '../support/start-test-bridge.js';

/**
 * A rollout record of an episode a person took part in (docs/trajectory.md): the log of a real run
 * with two calls waiting for approval (one denied, one approved with edits) and a person's message,
 * folded and written as a trajectory record, marks where the person took part in `messages` and
 * `steps`; `runbridge rollout export` reads such records in every format.
 */

let bridge: TestBridge;
let record: TrajectoryRecord;
let dir: string;

beforeAll(async () => {
  bridge = await startHitlBridge([
    scriptedProvider({
      two: echoBothThen({ text: 'Now the last one. ', toolCalls: [echo('end', { reward: 1, finished: true })] }),
    }),
  ]);
  dir = mkdtempSync(join(tmpdir(), 'hitl-trajectory-'));

  const runId = await bridge.startRun({ model: 'scripted:two', approval: { tools: ['echo'], timeout_seconds: 30 } });
  const [alpha, beta] = await eventsMatching(bridge, runId, ofType('tool.approval_required'), 2);
  expect((await sendMessage(bridge, runId, 'Please finish after this.')).status).toBe(202);
  await decide(bridge, runId, beta!.approval_id, { decision: 'deny', reason: 'not beta' });
  await decide(bridge, runId, alpha!.approval_id, { decision: 'approve', arguments: { text: 'ALPHA' } });
  const [last] = await eventsMatching(bridge, runId, ofType('tool.approval_required'), 3).then((all) => all.slice(2));
  await decide(bridge, runId, last!.approval_id, { decision: 'approve' });
  await bridge.readEvents(runId);

  const run = await bridge.registry.open(runId, LOCAL_OWNER);
  const episode = foldEpisode(run.log.entries);
  record = toTrajectoryRecord(episode, {
    rolloutId: 'ro_hitl',
    rollout: { key: 'hitl/train/0#0', groupId: 'hitl/train/0', index: 0, sample: 0, seed: 7 },
    attempt: 1,
    split: 'train',
    spec: null,
    sampling: {},
    rewardReduction: 'last',
    timeoutMs: 60_000,
  });
});
afterAll(async () => {
  await bridge.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('a trajectory record of an episode with a person in the loop', () => {
  it('is a valid record of schema version 1 that ended as the episode did', () => {
    expect(TrajectoryRecordSchema.parse(record)).toEqual(record);
    expect(record).toMatchObject({ schema_version: 1, status: 'completed', stop_reason: 'finished', reward: 1 });
  });

  it("marks in messages where the person took part: the message they sent, and each decided call's result", () => {
    const marked = record.messages.map((message) => {
      if (message.role === 'user') return ['user', message.origin ?? 'environment'];
      if (message.role === 'tool')
        return ['tool', message.approval ? `${message.approval.decision}/${message.approval.by}` : '-'];
      return [message.role];
    });
    expect(marked).toEqual([
      ['user', 'environment'],
      ['assistant'],
      ['tool', 'deny/client'],
      ['tool', 'approve/client'],
      ['user', 'human'],
      ['assistant'],
      ['tool', 'approve/client'],
    ]);
    const denial = record.messages[2]!;
    expect(denial).toMatchObject({ role: 'tool', approval: { reason: 'not beta', edited: false } });
    expect(denial.content).toContain('not beta');
    const edited = record.messages[3]!;
    expect(edited).toMatchObject({ role: 'tool', approval: { edited: true } });
    expect(edited.content).toContain('ALPHA');
    expect(record.messages[4]).toMatchObject({
      content: 'Please finish after this.',
      message_id: expect.stringMatching(/^msg_/),
    });
  });

  it('records in steps how each call was decided, with the arguments it ran with, and which turn read the message', () => {
    const [first, second] = record.steps;
    expect(first!.tool_calls.map((call) => [call.name, call.approval?.decision, call.approval?.arguments])).toEqual([
      ['echo', 'approve', { text: 'ALPHA' }],
      ['echo', 'deny', { text: 'beta' }],
    ]);
    expect(first!.tool_calls[1]).toMatchObject({ error: true, reward: null, duration_ms: 0 });
    expect(first!.user_message_ids).toBeUndefined();
    expect(second!.user_message_ids).toEqual([(record.messages[4] as { message_id: string }).message_id]);
    expect(record.rewards.map((entry) => entry.tool_call_id)).toEqual(['call_0_0', 'call_1_0']);
  });

  it.each(EXPORT_FORMATS)('exports in format %s, the messages in the plain shape of the format', async (format) => {
    const input = join(dir, `in-${format}.jsonl`);
    writeFileSync(input, `${JSON.stringify(record)}\n`);
    const out = join(dir, format === 'verifiers' ? `out-${format}` : `out-${format}.jsonl`);
    const result = await exportRollouts({ inputs: [input], format, out, filters: {}, onWarning: () => undefined });
    expect(result.rows).toBe(1);
    const written = result.files.map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(written).toContain('Please finish after this.');
    expect(written).not.toContain('"origin"');
    expect(written).not.toContain('"approval"');
  });
});
