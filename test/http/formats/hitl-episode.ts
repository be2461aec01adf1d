import type { RunEventInput } from '../../../src/protocol/run-events.js';

const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };
const EXPIRES = 1_764_000_600;

/**
 * An episode with a person in the loop, as the orchestrator writes it: turn 1 makes two `echo` calls
 * that wait for approval; `beta` is denied first, then `alpha` approved with edited arguments and
 * run; turn 2 answers in text and chat mode waits; a message comes; turn 3 answers and chat mode
 * waits again, until the input timeout completes the run.
 */
export const hitlEpisode: RunEventInput[] = [
  { event: 'run.started', env: 'hitl', task: { split: 'train', index: 0 }, model: 'scripted:test' },
  { event: 'message.delta', delta: 'Let me check.', turn: 1 },
  { event: 'turn.completed', turn: 1, finish_reason: 'tool_calls', usage },
  {
    event: 'tool.approval_required',
    approval_id: 'appr_a',
    tool: 'echo',
    tool_call_id: 'call_a',
    arguments: { text: 'alpha' },
    turn: 1,
    call_index: 0,
    expires_at: EXPIRES,
    on_timeout: 'deny',
  },
  {
    event: 'tool.approval_required',
    approval_id: 'appr_b',
    tool: 'echo',
    tool_call_id: 'call_b',
    arguments: { text: 'beta' },
    turn: 1,
    call_index: 1,
    expires_at: EXPIRES,
    on_timeout: 'deny',
  },
  {
    event: 'tool.approval_resolved',
    approval_id: 'appr_b',
    tool: 'echo',
    tool_call_id: 'call_b',
    decision: 'deny',
    reason: 'no beta',
    by: 'client',
    arguments: { text: 'beta' },
    edited: false,
    turn: 1,
    call_index: 1,
  },
  {
    event: 'tool.approval_resolved',
    approval_id: 'appr_a',
    tool: 'echo',
    tool_call_id: 'call_a',
    decision: 'approve',
    by: 'client',
    arguments: { text: 'ALPHA' },
    edited: true,
    turn: 1,
    call_index: 0,
  },
  {
    event: 'tool.started',
    tool: 'echo',
    tool_call_id: 'call_a',
    arguments: { text: 'ALPHA' },
    preview: 'ALPHA',
    turn: 1,
    call_index: 0,
  },
  {
    event: 'tool.completed',
    tool: 'echo',
    tool_call_id: 'call_a',
    duration: 0.01,
    error: false,
    output: 'ALPHA',
    reward: null,
    finished: false,
    turn: 1,
    call_index: 0,
  },
  { event: 'message.delta', delta: 'Alpha done.', turn: 2 },
  { event: 'turn.completed', turn: 2, finish_reason: 'stop', usage },
  { event: 'run.awaiting_input', turn: 2, expires_at: EXPIRES },
  { event: 'message.received', message_id: 'msg_1', content: 'Thanks!', turn: 3 },
  { event: 'message.delta', delta: 'You are welcome.', turn: 3 },
  { event: 'turn.completed', turn: 3, finish_reason: 'stop', usage },
  { event: 'run.awaiting_input', turn: 3, expires_at: EXPIRES },
  {
    event: 'run.completed',
    output: 'You are welcome.',
    usage: { input_tokens: 30, output_tokens: 15, total_tokens: 45 },
    reward: null,
    rewards: [{ tool_call_id: 'call_a', tool: 'echo', turn: 1, reward: null }],
    finished: false,
    turns: 3,
    stop_reason: 'no_tool_calls',
  },
];
