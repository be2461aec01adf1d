import type {
  AnyRunEvent,
  ApprovalDecision,
  CancelReason,
  MessageContent,
  StopReason,
  TaskRef,
  Usage,
} from 'runbridge/client';
import { isKnownRunEvent } from 'runbridge/client';
import { foldRunStatus, queuedStanding, type RunStanding } from '../../protocol/run-status.js';

/**
 * What the page shows of one run: a fold over the run's events (docs/events.md), the same fold every
 * view of the log is (the snapshot, the rollout record). `lastSeq` is the seq of the last event
 * folded in, so a transcript and its cursor are one value: stored together, a reload resumes the
 * stream right after it (`runs.events(runId, {after: lastSeq})`) and nothing is shown twice or lost.
 * Pure and serialisable: no DOM, no clock of its own (the caller says when each event arrived).
 */
export interface RunTranscript {
  runId: string;
  /** The seq of the last event folded in; -1 before the first. */
  lastSeq: number;
  /** The run's status as its events say, folded by the server's own rule (`foldRunStatus`). */
  standing: RunStanding;
  /** From `run.started`: what the run plays. */
  started: { env: string; task: TaskRef; model: string } | undefined;
  /** From `prompt.available`: the environment's prompt, the task the model is answering. */
  prompt: string | undefined;
  /** The model's turns, in order. */
  turns: TurnEntry[];
  /** How the run ended, from its terminal event; undefined while it runs. */
  outcome: RunOutcome | undefined;
  /** Messages the person sent that the run ended before reading (`message.dropped`). */
  droppedMessages: number;
  /** Chat mode waits for the person's next message until `expiresAt` (epoch seconds), from `run.awaiting_input`. */
  awaitingInput: { expiresAt: number } | undefined;
}

/** One model turn: its reasoning, then its text and tool calls in the order the model produced them. */
export interface TurnEntry {
  turn: number;
  /** What the person said before this turn (`message.received`): the model read it in this turn. */
  messages: UserMessage[];
  reasoning: { text: string; complete: boolean } | undefined;
  parts: Array<TextPart | ToolPart>;
  /** From `turn.completed`: set once the model's answer for this turn is over. */
  usage: Usage | undefined;
}

/** A message a person sent into the run. */
export interface UserMessage {
  id: string;
  text: string;
}

/** A run of assistant text between tool calls. */
export interface TextPart {
  kind: 'text';
  text: string;
}

/**
 * One tool call, from the moment the model names it to its result:
 * `forming` (arguments streaming, `tool.arguments.delta`) → `running` (`tool.started`, timed by
 * `tool.progress`) → `done` (`tool.completed`); `not-run` for a call the run ended before starting
 * (one announced after the call that finished the episode); `denied` for one a person (or the approval
 * timeout) refused, which never reaches the environment.
 */
export interface ToolPart {
  kind: 'tool';
  id: string;
  tool: string;
  callIndex: number;
  state: 'forming' | 'running' | 'done' | 'not-run' | 'denied';
  /** The arguments as the model streamed them, pieces joined. */
  argumentsText: string;
  /** The arguments as run, from `tool.started` (authoritative over `argumentsText`). */
  arguments: Record<string, unknown> | undefined;
  /**
   * Where the running timer stands: `elapsed` seconds at local time `at` (epoch ms) — 0 at
   * `tool.started`, then each `tool.progress`. The page adds its own clock to it between events, so
   * the timer moves every frame and is set right by the bridge every few seconds.
   */
  clock: { elapsed: number; at: number } | undefined;
  result: ToolResult | undefined;
  /** The call's approval, when the run asked a person first (docs/protocol.md §7). */
  approval: ToolApproval | undefined;
  /** Why a `not-run` call never ran, in a few words (the run's end came first). */
  notRunBecause?: string;
}

/**
 * A call waiting for a person's decision (`tool.approval_required`), then what was decided
 * (`tool.approval_resolved`): by whom, why, and whether the arguments were edited.
 */
export interface ToolApproval {
  id: string;
  /** Epoch seconds at which the timeout decides. */
  expiresAt: number;
  /** What the timeout decides then (the run's `approval.on_timeout`). */
  onTimeout: ApprovalDecision;
  decision: ApprovalDecision | undefined;
  by: 'client' | 'timeout' | 'cancel' | undefined;
  reason: string | undefined;
  edited: boolean;
}

/** What `tool.completed` says of a call. */
export interface ToolResult {
  duration: number;
  error: boolean;
  errorMessage: string | undefined;
  output: string;
  truncated: boolean;
  reward: number | null;
  finished: boolean;
}

/** How a run ended. */
export type RunOutcome =
  | {
      kind: 'completed';
      reward: number | null;
      turns: number;
      usage: Usage;
      stopReason: StopReason;
      finished: boolean;
    }
  | { kind: 'failed'; error: string; code: string }
  | { kind: 'cancelled'; reason: CancelReason };

/** The transcript of `runId` before any event. */
export function emptyTranscript(runId: string): RunTranscript {
  return {
    runId,
    lastSeq: -1,
    standing: queuedStanding(),
    started: undefined,
    prompt: undefined,
    turns: [],
    outcome: undefined,
    droppedMessages: 0,
    awaitingInput: undefined,
  };
}

/**
 * `transcript` with `event` folded in, `receivedAt` (epoch ms, the page's clock) being when it
 * arrived. An event at or before `lastSeq` is already in and changes nothing, so folding a replayed
 * stream twice gives the same transcript; an event of a type this page does not know only moves the cursor.
 */
export function foldRunEvent(transcript: RunTranscript, event: AnyRunEvent, receivedAt: number): RunTranscript {
  if (event.seq <= transcript.lastSeq) return transcript;
  // Whatever follows `run.awaiting_input` means the wait is over.
  const next = { ...transcript, lastSeq: event.seq, awaitingInput: undefined };
  if (!isKnownRunEvent(event)) return next;
  next.standing = standingAfter(transcript.standing, event);
  switch (event.event) {
    case 'run.started':
      return { ...next, started: { env: event.env, task: event.task, model: event.model } };
    case 'prompt.available':
      return { ...next, prompt: event.text };
    case 'message.delta':
      return withTurn(next, event.turn, (turn) => ({ ...turn, parts: appendText(turn.parts, event.delta) }));
    case 'reasoning.delta':
      return withTurn(next, event.turn, (turn) => ({
        ...turn,
        reasoning: { text: (turn.reasoning?.text ?? '') + event.delta, complete: false },
      }));
    case 'reasoning.available':
      return withTurn(next, event.turn, (turn) => ({ ...turn, reasoning: { text: event.text, complete: true } }));
    case 'tool.arguments.delta':
      return withTool(next, event, (part) => ({ ...part, argumentsText: part.argumentsText + event.delta }));
    case 'tool.started':
      return withTool(next, event, (part) => ({
        ...part,
        state: 'running',
        arguments: event.arguments,
        clock: { elapsed: 0, at: receivedAt },
      }));
    case 'tool.progress':
      return withTool(next, event, (part) => ({ ...part, clock: { elapsed: event.elapsed, at: receivedAt } }));
    case 'tool.completed':
      return withTool(next, event, (part) => ({
        ...part,
        state: 'done',
        clock: undefined,
        result: {
          duration: event.duration,
          error: event.error,
          errorMessage: event.error_message,
          output: event.output,
          truncated: event.truncated === true,
          reward: event.reward,
          finished: event.finished,
        },
      }));
    case 'turn.completed':
      return withTurn(next, event.turn, (turn) => ({
        ...turn,
        usage: event.usage,
        reasoning: turn.reasoning && { ...turn.reasoning, complete: true },
      }));
    case 'run.completed':
      return ended(next, {
        kind: 'completed',
        reward: event.reward,
        turns: event.turns,
        usage: event.usage,
        stopReason: event.stop_reason,
        finished: event.finished,
      });
    case 'run.failed':
      return ended(next, { kind: 'failed', error: event.error, code: event.code });
    case 'run.cancelled':
      return ended(next, { kind: 'cancelled', reason: event.reason });
    case 'tool.approval_required':
      return withTool(next, event, (part) => ({
        ...part,
        arguments: event.arguments,
        approval: {
          id: event.approval_id,
          expiresAt: event.expires_at,
          onTimeout: event.on_timeout,
          decision: undefined,
          by: undefined,
          reason: undefined,
          edited: false,
        },
      }));
    case 'tool.approval_resolved':
      return withTool(next, event, (part) => ({
        ...part,
        state: event.decision === 'deny' ? 'denied' : part.state,
        arguments: event.arguments,
        approval: {
          id: event.approval_id,
          expiresAt: part.approval?.expiresAt ?? event.timestamp,
          // Decided: what a timeout would have done no longer shows.
          onTimeout: part.approval?.onTimeout ?? 'deny',
          decision: event.decision,
          by: event.by,
          reason: event.reason,
          edited: event.edited,
        },
      }));
    case 'message.received':
      return withTurn(next, event.turn, (turn) => ({
        ...turn,
        messages: [...turn.messages, { id: event.message_id, text: contentText(event.content) }],
      }));
    case 'run.awaiting_input':
      return { ...next, awaitingInput: { expiresAt: event.expires_at } };
    case 'message.dropped':
      return { ...next, droppedMessages: next.droppedMessages + 1 };
  }
}

/**
 * `standing` with `event` folded in, as a new value (the transcript is one). The calls waiting for a
 * decision are copied only when an event changes them.
 */
function standingAfter(standing: RunStanding, event: Parameters<typeof foldRunStatus>[1]): RunStanding {
  const touchesApprovals =
    event.event === 'tool.approval_required' ||
    event.event === 'tool.approval_resolved' ||
    event.event === 'run.completed' ||
    event.event === 'run.failed' ||
    event.event === 'run.cancelled';
  const next = {
    ...standing,
    pendingApprovals: touchesApprovals ? { ...standing.pendingApprovals } : standing.pendingApprovals,
  };
  foldRunStatus(next, event);
  return next;
}

/** The running timer of a tool part at local time `now` (epoch ms), in seconds. */
export function toolElapsed(part: ToolPart, now: number): number {
  if (part.result) return part.result.duration;
  if (!part.clock) return 0;
  return part.clock.elapsed + Math.max(0, now - part.clock.at) / 1000;
}

/** The calls of the transcript that wait for a person's decision, oldest first. */
export function pendingApprovals(transcript: RunTranscript): ToolPart[] {
  if (transcript.outcome) return [];
  return transcript.turns.flatMap((turn) =>
    turn.parts.filter(
      (part): part is ToolPart =>
        part.kind === 'tool' && part.approval !== undefined && part.approval.decision === undefined,
    ),
  );
}

/** True while a tool call of the transcript is running. */
export function hasRunningTool(transcript: RunTranscript): boolean {
  return transcript.turns.some((turn) => turn.parts.some((part) => part.kind === 'tool' && part.state === 'running'));
}

function withTurn(transcript: RunTranscript, number: number, change: (turn: TurnEntry) => TurnEntry): RunTranscript {
  const index = transcript.turns.findIndex((turn) => turn.turn === number);
  const turns = [...transcript.turns];
  if (index < 0) turns.push(change({ turn: number, messages: [], reasoning: undefined, parts: [], usage: undefined }));
  else turns[index] = change(turns[index]!);
  return { ...transcript, turns };
}

function appendText(parts: TurnEntry['parts'], delta: string): TurnEntry['parts'] {
  const last = parts.at(-1);
  if (last?.kind === 'text') return [...parts.slice(0, -1), { kind: 'text', text: last.text + delta }];
  return [...parts, { kind: 'text', text: delta }];
}

/** The text of a message's content: its text parts joined (an image shows as a note). */
function contentText(content: MessageContent): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('\n');
}

/** The fields every tool event carries. */
interface ToolEventRef {
  tool_call_id: string;
  tool: string;
  turn: number;
  call_index: number;
}

/** `transcript` with the part of `event`'s call changed, created first (as `forming`) when the call is new. */
function withTool(transcript: RunTranscript, event: ToolEventRef, change: (part: ToolPart) => ToolPart): RunTranscript {
  return withTurn(transcript, event.turn, (turn) => {
    const index = turn.parts.findIndex((part) => part.kind === 'tool' && part.id === event.tool_call_id);
    const parts = [...turn.parts];
    if (index < 0) {
      parts.push(
        change({
          kind: 'tool',
          id: event.tool_call_id,
          tool: event.tool,
          callIndex: event.call_index,
          state: 'forming',
          argumentsText: '',
          arguments: undefined,
          clock: undefined,
          result: undefined,
          approval: undefined,
        }),
      );
    } else {
      parts[index] = change(parts[index] as ToolPart);
    }
    return { ...turn, parts };
  });
}

/** The run's end: calls still forming never ran, and the last turn's reasoning is over. */
/** What ended the run before a call could run, as the call's card says it. */
function notRunBecause(outcome: RunOutcome): string {
  if (outcome.kind === 'cancelled') return 'the run was cancelled';
  if (outcome.kind === 'completed') return 'the episode had already ended';
  if (outcome.code === 'instance_lost') return 'the instance running this run was lost';
  if (outcome.code === 'store_lost') return 'the store lost this run';
  return 'the run failed first';
}

function ended(transcript: RunTranscript, outcome: RunOutcome): RunTranscript {
  const turns = transcript.turns.map((turn) => ({
    ...turn,
    reasoning: turn.reasoning && { ...turn.reasoning, complete: true },
    parts: turn.parts.map((part) =>
      part.kind === 'tool' && part.state !== 'done' && part.state !== 'denied'
        ? { ...part, state: 'not-run' as const, clock: undefined, notRunBecause: notRunBecause(outcome) }
        : part,
    ),
  }));
  return { ...transcript, turns, outcome };
}
