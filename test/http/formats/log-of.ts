import {
  DEFAULT_FORMAT_OPTIONS,
  type FormatOptions,
  type StreamContext,
} from '../../../src/http/formats/stream-format.js';
import type { RunEventInput } from '../../../src/protocol/run-events.js';
import { EventLog } from '../../../src/runs/event-log.js';

/** 2025-11-24T16:00:00Z, in epoch milliseconds: the clock every test log starts at. */
export const T0 = 1_764_000_000_000;

/**
 * A real event log holding `inputs` (one millisecond apart, from {@link T0}) and the stream context
 * a format sees for it, with `options` as the request's format options.
 */
export function logOf(
  inputs: RunEventInput[],
  options: FormatOptions = DEFAULT_FORMAT_OPTIONS,
): { log: EventLog; context: StreamContext } {
  let tick = T0;
  const log = new EventLog('run_test', { now: () => tick++ });
  for (const input of inputs) log.append(input);
  return {
    log,
    context: {
      runId: 'run_test',
      model: 'scripted:test',
      created: T0 / 1000,
      options,
      log: log.entries,
    },
  };
}

const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };

/**
 * An episode of two turns as the orchestrator writes it: turn 1 reasons, says "Let me add.", calls
 * `calculator`; turn 2 says "It is 4." and calls `submit`, which finishes the episode.
 */
export const twoTurnEpisode: RunEventInput[] = [
  { event: 'run.started', env: 'arith', task: { split: 'train', index: 0 }, model: 'scripted:test' },
  { event: 'reasoning.delta', delta: 'Add', turn: 1 },
  { event: 'reasoning.delta', delta: ' them.', turn: 1 },
  { event: 'message.delta', delta: 'Let me ', turn: 1 },
  { event: 'message.delta', delta: 'add.', turn: 1 },
  { event: 'reasoning.available', text: 'Add them.', turn: 1 },
  { event: 'turn.completed', turn: 1, finish_reason: 'tool_calls', usage },
  {
    event: 'tool.started',
    tool: 'calculator',
    tool_call_id: 'call_a',
    arguments: { expression: '2 + 2' },
    preview: '2 + 2',
    turn: 1,
    call_index: 0,
  },
  {
    event: 'tool.completed',
    tool: 'calculator',
    tool_call_id: 'call_a',
    duration: 0.01,
    error: false,
    output: '2 + 2 = 4',
    reward: null,
    finished: false,
    turn: 1,
    call_index: 0,
  },
  { event: 'message.delta', delta: 'It is 4.', turn: 2 },
  { event: 'turn.completed', turn: 2, finish_reason: 'tool_calls', usage },
  {
    event: 'tool.started',
    tool: 'submit',
    tool_call_id: 'call_b',
    arguments: { answer: 4 },
    preview: '{"answer":4}',
    turn: 2,
    call_index: 1,
  },
  {
    event: 'tool.completed',
    tool: 'submit',
    tool_call_id: 'call_b',
    duration: 0.01,
    error: false,
    output: 'Correct.',
    reward: 1,
    finished: true,
    turn: 2,
    call_index: 1,
  },
  {
    event: 'run.completed',
    output: 'It is 4.',
    usage: { input_tokens: 20, output_tokens: 10, total_tokens: 30 },
    reward: 1,
    rewards: [
      { tool_call_id: 'call_a', tool: 'calculator', turn: 1, reward: null },
      { tool_call_id: 'call_b', tool: 'submit', turn: 2, reward: 1 },
    ],
    finished: true,
    turns: 2,
    stop_reason: 'finished',
  },
];

/**
 * One turn whose two tool calls stream their arguments (interleaved, as parallel calls do) while the
 * model also reasons and writes text; `calculator` then runs long enough to report progress, and
 * `submit` finishes the episode.
 */
export const streamedCallsEpisode: RunEventInput[] = [
  { event: 'run.started', env: 'arith', task: { split: 'train', index: 0 }, model: 'scripted:test' },
  { event: 'reasoning.delta', delta: 'Add them.', turn: 1 },
  { event: 'message.delta', delta: 'Adding.', turn: 1 },
  { event: 'tool.arguments.delta', tool: 'calculator', tool_call_id: 'call_a', delta: '', turn: 1, call_index: 0 },
  {
    event: 'tool.arguments.delta',
    tool: 'calculator',
    tool_call_id: 'call_a',
    delta: '{"expression":',
    turn: 1,
    call_index: 0,
  },
  { event: 'tool.arguments.delta', tool: 'submit', tool_call_id: 'call_b', delta: '', turn: 1, call_index: 1 },
  {
    event: 'tool.arguments.delta',
    tool: 'calculator',
    tool_call_id: 'call_a',
    delta: '"2 + 2"}',
    turn: 1,
    call_index: 0,
  },
  {
    event: 'tool.arguments.delta',
    tool: 'submit',
    tool_call_id: 'call_b',
    delta: '{"answer":4}',
    turn: 1,
    call_index: 1,
  },
  { event: 'reasoning.available', text: 'Add them.', turn: 1 },
  { event: 'turn.completed', turn: 1, finish_reason: 'tool_calls', usage },
  {
    event: 'tool.started',
    tool: 'calculator',
    tool_call_id: 'call_a',
    arguments: { expression: '2 + 2' },
    preview: '2 + 2',
    turn: 1,
    call_index: 0,
  },
  { event: 'tool.progress', tool: 'calculator', tool_call_id: 'call_a', elapsed: 5, turn: 1, call_index: 0 },
  {
    event: 'tool.completed',
    tool: 'calculator',
    tool_call_id: 'call_a',
    duration: 6.5,
    error: false,
    output: '2 + 2 = 4',
    reward: null,
    finished: false,
    turn: 1,
    call_index: 0,
  },
  {
    event: 'tool.started',
    tool: 'submit',
    tool_call_id: 'call_b',
    arguments: { answer: 4 },
    preview: '{"answer":4}',
    turn: 1,
    call_index: 1,
  },
  {
    event: 'tool.completed',
    tool: 'submit',
    tool_call_id: 'call_b',
    duration: 0.01,
    error: false,
    output: 'Correct.',
    reward: 1,
    finished: true,
    turn: 1,
    call_index: 1,
  },
  {
    event: 'run.completed',
    output: 'Adding.',
    usage,
    reward: 1,
    rewards: [
      { tool_call_id: 'call_a', tool: 'calculator', turn: 1, reward: null },
      { tool_call_id: 'call_b', tool: 'submit', turn: 1, reward: 1 },
    ],
    finished: true,
    turns: 1,
    stop_reason: 'finished',
  },
];
