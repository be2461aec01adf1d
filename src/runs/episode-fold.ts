import type { Message, ToolCall, ToolDefinition } from '../models/conversation.js';
import type { EventDetail, RunContext, ToolDetail, TurnDetail } from '../protocol/event-detail.js';
import { reduceRewards } from '../protocol/reduce-rewards.js';
import type { RunEvent, RunEventOf, ToolReward, Usage } from '../protocol/run-events.js';
import { type RewardReduction, RUN_REQUEST_DEFAULTS, type Sampling } from '../protocol/run-request.js';
import { denialText, editedArgumentsText } from './approval-texts.js';
import {
  messageFromWire,
  partsFromWire,
  reasoningFromWire,
  tokenDataFromWire,
  toolFromWire,
} from './conversation-wire.js';
import type {
  ApprovalRecord,
  EpisodeEnd,
  EpisodeRecord,
  EpisodeStep,
  ToolCallRecord,
  UserMessageRecord,
} from './episode-record.js';
import { contentToParts } from './ors-conversation.js';

/** What the model is told for a call the episode did not send because a tool had already finished it. */
export const NOT_RUN_TEXT = 'Not run: the episode had already finished.';

/** One entry of a log: the event and its detail (what the record needs beyond the event). */
export interface LogEntry {
  event: RunEvent;
  detail?: EventDetail | undefined;
}

/**
 * Folds a run's log — events and their details — into its {@link EpisodeRecord}, one entry at a
 * time. The episode feeds it every entry it writes and sends the model the conversation folded so
 * far, so the conversation, the record and the log cannot disagree; a log read back from any store
 * folds to the same record (`foldEpisode`). Entries must come in log order.
 */
export class EpisodeFold {
  #started: RunEventOf<'run.started'> | undefined;
  #sampling: Sampling = {};
  #reduction: RewardReduction = RUN_REQUEST_DEFAULTS.reward_reduction;
  #messages: Message[] = [];
  #tools: ToolDefinition[] = [];
  readonly #steps: EpisodeStep[] = [];
  readonly #rewards: ToolReward[] = [];
  readonly #usage: Usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
  #finished = false;
  #turns = 0;
  #output = '';
  /** The text of the turn being streamed, joined from its `message.delta`s. */
  #turnText = '';
  #turnReasoning = '';
  /** The tool calls of the newest turn, as its detail listed them. */
  #turnCalls: ToolCall[] = [];
  /**
   * Where each call of the newest turn stands in it, by id: a turn may hold thousands of calls, each
   * answered in turn, so finding one must not scan the others (issue 34).
   */
  #turnOrder = new Map<string, number>();
  readonly #answered = new Set<string>();
  /** How the calls of the newest turn that waited for approval were decided, by call id. */
  readonly #approvals = new Map<string, ApprovalRecord>();
  readonly #userMessages: UserMessageRecord[] = [];
  #timing = { modelMs: 0, envMs: 0 };
  #end: { end: EpisodeEnd; at: number } | undefined;

  /** The conversation so far: what the next model call is sent. Live; do not mutate. */
  get messages(): Message[] {
    return this.#messages;
  }

  /** The tools offered to the model (empty until the context). Live; do not mutate. */
  get tools(): ToolDefinition[] {
    return this.#tools;
  }

  /** True once a tool result said the episode is over. */
  get finished(): boolean {
    return this.#finished;
  }

  /** What `run.completed` reports of the episode so far. */
  totals(): {
    output: string;
    usage: Usage;
    reward: number | null;
    rewards: ToolReward[];
    finished: boolean;
    turns: number;
  } {
    return {
      output: this.#output,
      usage: { ...this.#usage },
      reward: this.#reward(),
      rewards: this.#rewards.map((entry) => ({ ...entry })),
      finished: this.#finished,
      turns: this.#turns,
    };
  }

  /**
   * Folds one entry. A `context` detail applies first, whichever event carries it; the others
   * belong to their event (`turn` to `turn.completed`, `tool` to `tool.completed`, `timing` to
   * the terminal event).
   */
  apply(event: RunEvent, detail?: EventDetail): void {
    if (detail?.context) this.applyContext(detail.context);
    switch (event.event) {
      case 'run.started':
        this.#started = event;
        break;
      case 'message.delta':
        this.#turnText += event.delta;
        break;
      case 'reasoning.available':
        this.#turnReasoning = event.text;
        break;
      case 'turn.completed':
        this.#completeTurn(event, detail?.turn);
        break;
      case 'tool.completed':
        this.#completeTool(event, detail?.tool);
        break;
      case 'tool.approval_resolved':
        this.#resolveApproval(event);
        break;
      case 'message.received':
        this.#userMessages.push({ messageId: event.message_id, turn: event.turn, index: this.#messages.length });
        this.#messages.push({ role: 'user', content: contentToParts(event.content) });
        break;
      case 'run.completed':
      case 'run.failed':
      case 'run.cancelled':
        if (detail?.timing) this.#timing = { modelMs: detail.timing.model_ms, envMs: detail.timing.env_ms };
        this.#closeUnrunCalls();
        this.#end = { end: endOf(event), at: event.timestamp };
        break;
      default:
        break;
    }
  }

  /**
   * Where the conversation starts. The episode applies it as soon as it knows it (its first model
   * call needs it), before the entry that will carry it is written.
   */
  applyContext(context: RunContext): void {
    this.#messages = context.messages.map(messageFromWire);
    this.#tools = context.tools.map(toolFromWire);
    this.#sampling = context.sampling;
    this.#reduction = context.reward_reduction;
  }

  /** The record of the whole episode; the log must have reached its terminal event. */
  record(): EpisodeRecord {
    const started = this.#started;
    const end = this.#end;
    if (!started || !end)
      throw new Error('An episode record needs a whole log, from run.started to its terminal event.');
    return {
      env: started.env,
      task: started.task,
      model: started.model,
      sampling: this.#sampling,
      messages: this.#messages,
      userMessages: this.#userMessages,
      tools: this.#tools,
      steps: this.#steps,
      usage: { ...this.#usage },
      rewards: this.#rewards,
      reward: this.#reward(),
      finished: this.#finished,
      turns: this.#turns,
      output: this.#output,
      end: end.end,
      timing: {
        startedAt: epochMs(started.timestamp),
        endedAt: epochMs(end.at),
        modelMs: this.#timing.modelMs,
        envMs: this.#timing.envMs,
      },
    };
  }

  #reward(): number | null {
    return reduceRewards(
      this.#rewards.map((entry) => entry.reward),
      this.#reduction,
    );
  }

  #completeTurn(event: RunEventOf<'turn.completed'>, detail: TurnDetail | undefined): void {
    this.#turns = event.turn;
    this.#output = this.#turnText;
    this.#usage.input_tokens += event.usage.input_tokens;
    this.#usage.output_tokens += event.usage.output_tokens;
    this.#usage.total_tokens += event.usage.total_tokens;
    const step: EpisodeStep = {
      turn: event.turn,
      finishReason: event.finish_reason,
      ...(detail?.raw_finish_reason === undefined ? {} : { rawFinishReason: detail.raw_finish_reason }),
      usage: event.usage,
      text: this.#turnText,
      reasoning: this.#turnReasoning,
      toolCalls: [],
      ...(detail?.token_data === undefined ? {} : { tokenData: tokenDataFromWire(detail.token_data) }),
      modelMs: detail?.duration_ms ?? 0,
    };
    this.#steps.push(step);
    this.#turnCalls = (detail?.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.name,
      arguments: call.arguments,
    }));
    this.#turnOrder = new Map();
    // The first call of an id wins, as a search from the start found it.
    for (const [index, call] of this.#turnCalls.entries())
      if (!this.#turnOrder.has(call.id)) this.#turnOrder.set(call.id, index);
    this.#answered.clear();
    this.#approvals.clear();
    this.#messages.push({
      role: 'assistant',
      content: this.#turnText,
      reasoning: reasoningFromWire(detail?.reasoning ?? []),
      toolCalls: this.#turnCalls.map((call) => ({ ...call })),
    });
    this.#turnText = '';
    this.#turnReasoning = '';
  }

  #completeTool(event: RunEventOf<'tool.completed'>, output: ToolDetail | undefined): void {
    const errorText = event.error_message ?? 'The tool failed.';
    const result = event.error
      ? [{ type: 'text' as const, text: errorText }]
      : output?.content
        ? partsFromWire(output.content)
        : [{ type: 'text' as const, text: event.output }];
    const approval = this.#approvals.get(event.tool_call_id);
    // The model is told when the call it made is not the call that ran.
    const content = approval?.edited
      ? [{ type: 'text' as const, text: editedArgumentsText(approval.arguments) }, ...result]
      : result;
    this.#addCall({
      id: event.tool_call_id,
      name: event.tool,
      arguments: this.#madeArguments(event.tool_call_id),
      content,
      metadata: output?.metadata ?? null,
      reward: event.reward,
      finished: event.finished,
      error: event.error,
      ...(event.error ? { errorMessage: errorText } : {}),
      // `duration` is seconds with millisecond precision: back to the milliseconds measured.
      durationMs: Math.round(event.duration * 1e6) / 1e3,
      ...(approval ? { approval } : {}),
    });
    this.#rewards.push({ tool_call_id: event.tool_call_id, tool: event.tool, turn: event.turn, reward: event.reward });
    if (event.finished) this.#finished = true;
  }

  /** A decision: kept for the call's record; a denied call is answered here, as it never runs. */
  #resolveApproval(event: RunEventOf<'tool.approval_resolved'>): void {
    const approval: ApprovalRecord = {
      approvalId: event.approval_id,
      decision: event.decision,
      by: event.by,
      ...(event.reason === undefined ? {} : { reason: event.reason }),
      edited: event.edited,
      arguments: event.arguments,
    };
    this.#approvals.set(event.tool_call_id, approval);
    if (event.decision === 'approve') return;
    const text = denialText(event);
    this.#addCall({
      id: event.tool_call_id,
      name: event.tool,
      arguments: this.#madeArguments(event.tool_call_id),
      content: [{ type: 'text', text }],
      metadata: null,
      reward: null,
      finished: false,
      error: true,
      errorMessage: text,
      durationMs: 0,
      approval,
    });
  }

  /**
   * Records an answered call in its step — in the order the model made the calls, since a denied
   * call is answered before the approved ones run — and answers it in the conversation.
   */
  #addCall(call: ToolCallRecord): void {
    const calls = this.#steps.at(-1)?.toolCalls;
    if (calls) {
      const order = (id: string) => this.#turnOrder.get(id) ?? -1;
      const position = order(call.id);
      // Calls are mostly answered in order, so the place is found from the end, in a step or two.
      let at = calls.length;
      while (at > 0 && order(calls[at - 1]!.id) > position) at--;
      calls.splice(at, 0, call);
    }
    this.#answered.add(call.id);
    this.#messages.push({
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: call.content.map((part) => ({ ...part })),
      isError: call.error,
      // A provider that replays its own sampled ids must know the call that ran is not the one it wrote.
      ...(call.approval?.edited ? { editedArguments: call.approval.arguments } : {}),
    });
  }

  /** The arguments text the model wrote for call `id` of the newest turn. */
  #madeArguments(id: string): string {
    const index = this.#turnOrder.get(id);
    return index === undefined ? '{}' : this.#turnCalls[index]!.arguments;
  }

  /**
   * The calls of the last turn that came after the one that finished the episode were never sent,
   * but each still gets a result, so the conversation stays valid for every provider.
   */
  #closeUnrunCalls(): void {
    if (!this.#finished) return;
    for (const call of this.#turnCalls) {
      if (this.#answered.has(call.id)) continue;
      this.#answered.add(call.id);
      this.#messages.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: 'text', text: NOT_RUN_TEXT }],
        isError: true,
      });
    }
  }
}

/** The record of a whole log (`run.started` to its terminal event), e.g. one read back from a store. */
export function foldEpisode(entries: Iterable<LogEntry>): EpisodeRecord {
  const fold = new EpisodeFold();
  for (const { event, detail } of entries) fold.apply(event, detail);
  return fold.record();
}

function endOf(event: RunEventOf<'run.completed' | 'run.failed' | 'run.cancelled'>): EpisodeEnd {
  switch (event.event) {
    case 'run.completed':
      return { status: 'completed', stopReason: event.stop_reason };
    case 'run.failed':
      return { status: 'failed', code: event.code, message: event.error };
    case 'run.cancelled':
      return { status: 'cancelled', reason: event.reason };
  }
}

/** An event timestamp (epoch seconds, millisecond precision) back in epoch milliseconds. */
function epochMs(seconds: number): number {
  return Math.round(seconds * 1000);
}
