import { describe, expect, it } from 'vitest';
import type { RunEventInput } from '../../src/protocol/run-events.js';
import { approvalState } from '../../src/runs/approval-outcome.js';
import { EventLog, type LoggedEvent } from '../../src/runs/event-log.js';

/** A log whose entries cannot be read: what is answered from it is answered without a scan. */
class UnscannableLog extends EventLog {
  override get entries(): readonly LoggedEvent[] {
    throw new Error('the whole log was read');
  }
}

function required(index: number): RunEventInput {
  return {
    event: 'tool.approval_required',
    approval_id: `appr_${index}`,
    tool: 'submit',
    tool_call_id: `call_${index}`,
    arguments: { answer: index },
    turn: 1,
    call_index: index,
    expires_at: 1_700_000_600,
    on_timeout: 'deny',
  };
}

describe('approvalState', () => {
  it('answers where an approval stands from the log’s index, without reading the log', () => {
    const log = new UnscannableLog('run_test');
    log.append({ event: 'run.started', env: 'arith', task: { split: 'train', index: 0 }, model: 'offline' });
    for (let index = 0; index < 1000; index++) log.append(required(index));
    const resolution = {
      event: 'tool.approval_resolved',
      approval_id: 'appr_7',
      tool: 'submit',
      tool_call_id: 'call_7',
      decision: 'deny',
      by: 'client',
      arguments: { answer: 7 },
      edited: false,
      turn: 1,
      call_index: 7,
    } as const;
    log.append(resolution, { approval: { decision_id: 'dec_1' } });

    expect(approvalState(log, 'appr_999')).toMatchObject({ kind: 'pending', required: { call_index: 999 } });
    expect(approvalState(log, 'appr_7')).toMatchObject({
      kind: 'resolved',
      resolved: { approval_id: 'appr_7', decision: 'deny' },
      decisionId: 'dec_1',
    });
    expect(approvalState(log, 'appr_unknown')).toEqual({ kind: 'unknown' });

    log.append({ event: 'run.failed', error: 'Lost.', code: 'instance_lost' });
    expect(approvalState(log, 'appr_999')).toMatchObject({ kind: 'ended', terminal: { event: 'run.failed' } });
    expect(approvalState(log, 'appr_7')).toMatchObject({ kind: 'resolved' });
    expect(approvalState(log, 'appr_unknown')).toMatchObject({ kind: 'ended' });
  });
});
