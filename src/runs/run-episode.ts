import { RunbridgeError } from '../errors.js';
import { addTokenData } from '../models/add-token-data.js';
import type { Message, ReasoningBlock, ToolCall } from '../models/conversation.js';
import type { Model, ModelFinishReason, TokenData } from '../models/model.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { OrsSession } from '../ors/client/ors-session.js';
import type { ToolOutput } from '../ors/ors-schemas.js';
import { EPISODE_CAPS, type EpisodeCaps } from '../protocol/episode-caps.js';
import type { EventDetail, RunContext } from '../protocol/event-detail.js';
import type { FinishReason, RunEvent, RunEventInput, StopReason, TaskRef } from '../protocol/run-events.js';
import {
  type ApprovalPolicy,
  type RewardReduction,
  RUN_REQUEST_DEFAULTS,
  type RunRequest,
  type Sampling,
} from '../protocol/run-request.js';
import {
  type ModelCallResult,
  QUIET_OBSERVER,
  type RunObserver,
  type ToolCallResult,
} from '../telemetry/run-observer.js';
import { awaitApprovals, type GatedCall, heldCalls, type Verdict } from './approval-gate.js';
import { awaitInput } from './await-input.js';
import { CallIndexes } from './call-indexes.js';
import { messageToWire, partsToWire, reasoningToWire, tokenDataToWire, toolToWire } from './conversation-wire.js';
import { cutToolContent, cutToolText } from './cut-tool-content.js';
import { abortMessage, endFromError, terminalEventOf } from './episode-end.js';
import { EpisodeFold } from './episode-fold.js';
import type { EpisodeEnd, EpisodeRecord } from './episode-record.js';
import {
  blocksToContent,
  blocksToText,
  inputToMessages,
  toolPreview,
  toolSpecToDefinition,
} from './ors-conversation.js';
import { parseToolArguments } from './parse-tool-arguments.js';
import { type RunDataRedactor, runDataRedactor, type StreamRedactor } from './run-data-redactor.js';
import type { RunInbox } from './run-inbox.js';
import { withToolProgress } from './tool-progress.js';
import { TurnOutputMeter } from './turn-output-meter.js';
import { wireFinishReason } from './wire-finish-reason.js';

export interface EpisodeOptions {
  ors: OrsClient;
  model: Model;
  env: string;
  task: TaskRef;
  input?: RunRequest['input'];
  instructions?: string;
  sampling?: Sampling;
  maxTurns: number;
  /** Default: a run request's default, `last`. */
  rewardReduction?: RewardReduction;
  /** Forwarded to ORS `/create` only. */
  secrets?: Record<string, unknown>;
  /**
   * The bridge's own secrets (API keys, provider keys, webhook secret, metrics token): cut, like the
   * run's, out of everything the run writes, whatever a model or environment says (docs/security.md).
   */
  bridgeSecrets?: readonly string[];
  /** Tool outputs longer than this are cut in `tool.completed` (the entry's detail keeps more, see `caps`). */
  toolOutputEventChars: number;
  /** What one turn and one tool result may put into the run (docs/protocol.md §1.5–§1.7); default {@link EPISODE_CAPS}. */
  caps?: Partial<EpisodeCaps>;
  /** Period of `tool.progress` while a tool call runs; undefined sends none. */
  toolProgressMs?: number;
  /**
   * Where people's decisions and messages arrive (docs/protocol.md §7); without one, no call waits
   * for approval and no answer waits for input (rollouts).
   */
  inbox?: RunInbox;
  /** Which calls wait for a decision (needs `inbox`). */
  approval?: ApprovalPolicy;
  /** Chat mode (needs `inbox`): an answer without a tool call waits this long for a message. */
  inputTimeoutMs?: number;
  /** Aborted with a {@link RunCancelledError} to cancel; any other reason fails the run. */
  signal: AbortSignal;
  /**
   * Writes every event in order, with the entry's detail (what the record needs beyond the event),
   * and returns it as written (with `seq`, `run_id`, `timestamp`); a throw (e.g. a full event log)
   * fails the run.
   */
  emit: (event: RunEventInput, detail?: EventDetail) => RunEvent;
  now?: () => number;
  /** Hears of each model call, tool call, ORS session step and wait, for logs, metrics and traces; default none. */
  observer?: RunObserver;
}

/**
 * Plays one ORS episode (docs/protocol.md §1): opens a session, reads prompt and tools, loops model turn →
 * tool calls until a tool result says `finished`, the model answers without a tool call, `maxTurns`
 * is reached, the signal aborts, or something fails — and always deletes the session. Every step is
 * emitted as an event, starting with `run.started` and ending with exactly one terminal event, which
 * is written after the session is closed. The log is the only record: the conversation each model
 * call is sent and the record returned are folded from its entries ({@link EpisodeFold}), the facts
 * the events do not publish riding along as the entries' detail. Never throws; how it ended is in
 * the record's `end`.
 */
export async function runEpisode(options: EpisodeOptions): Promise<EpisodeRecord> {
  return new Episode(options).play();
}

class Episode {
  readonly #o: EpisodeOptions;
  readonly #now: () => number;
  readonly #fold = new EpisodeFold();
  readonly #timing = { modelMs: 0, envMs: 0 };
  /** The context, once known, until an entry carries it into the log. */
  #pendingContext: RunContext | undefined;
  readonly #callIndexes = new CallIndexes();
  /** Cuts the run's secrets out of everything it writes; undefined (no work at all) without secrets. */
  readonly #redact: RunDataRedactor | undefined;
  readonly #observer: RunObserver;
  readonly #caps: EpisodeCaps;

  constructor(options: EpisodeOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#redact = runDataRedactor(options.secrets, options.bridgeSecrets);
    this.#observer = options.observer ?? QUIET_OBSERVER;
    this.#caps = { ...EPISODE_CAPS, ...options.caps };
  }

  /**
   * Writes one entry and folds it; the pending context rides on it into the log (the fold has it
   * already). Every entry passes here, so here the run's secrets are cut out of what it publishes,
   * stores and — the conversation being folded from the entries — shows the model (docs/security.md).
   */
  #emit(input: RunEventInput, detail?: EventDetail): void {
    const context = this.#pendingContext;
    this.#pendingContext = undefined;
    const redact = this.#redact;
    const kept = redact ? redact.detail(detail) : detail;
    const event = this.#o.emit(redactValue(redact, input), context ? { ...kept, context } : kept);
    this.#fold.apply(event, kept);
  }

  async play(): Promise<EpisodeRecord> {
    const o = this.#o;
    let session: OrsSession | undefined;
    let end: EpisodeEnd;
    let began = false;
    try {
      this.#emit({ event: 'run.started', env: o.env, task: o.task, model: o.model.id });
      o.signal.throwIfAborted();
      began = true;
      const { open, signal, blocks, specs } = await this.#timed('envMs', () =>
        this.#observer.orsSession('setup', async () => {
          const opened = await o.ors.openSession({ env: o.env, task: o.task, secrets: o.secrets, signal: o.signal });
          session = opened;
          // From here on, a session that can no longer be kept alive stops the model and the tools too.
          const signal = AbortSignal.any([o.signal, opened.lost]);
          const [blocks, specs] = await Promise.all([opened.prompt(signal), opened.tools(signal)]);
          return { open: opened, signal, blocks, specs };
        }),
      );
      const messages: Message[] = [
        ...(o.instructions ? [{ role: 'system' as const, content: o.instructions }] : []),
        { role: 'user', content: blocksToContent(blocks) },
        ...inputToMessages(o.input),
      ];
      const written: RunContext = {
        messages: messages.map(messageToWire),
        tools: specs.map(toolSpecToDefinition).map(toolToWire),
        sampling: o.sampling ?? {},
        max_turns: o.maxTurns,
        reward_reduction: o.rewardReduction ?? RUN_REQUEST_DEFAULTS.reward_reduction,
      };
      // Redacted here, not in #emit: the fold takes it now, before the entry that carries it is written.
      const context = redactValue(this.#redact, written);
      this.#fold.applyContext(context);
      this.#pendingContext = context;
      // The task as the model reads it, for the people watching (the context rides on this entry).
      this.#emit({ event: 'prompt.available', text: blocksToText(blocks) });
      end = { status: 'completed', stopReason: await this.#loop(open, signal) };
    } catch (error) {
      end = endFromError(error, o.signal);
    } finally {
      if (session) {
        const open: OrsSession = session;
        await this.#timed('envMs', () => this.#observer.orsSession('teardown', () => open.close()));
      }
    }
    // Messages accepted but never read: their senders learn it before the run ends.
    for (const message of o.inbox?.takeMessages() ?? []) {
      this.#emit({ event: 'message.dropped', message_id: message.messageId, reason: 'run_ended' });
    }
    // A run cancelled before it began (e.g. in the queue) spent no time anywhere.
    const timing = began ? { timing: { model_ms: this.#timing.modelMs, env_ms: this.#timing.envMs } } : undefined;
    this.#emit(
      terminalEventOf(end, () => this.#fold.totals()),
      timing,
    );
    return this.#fold.record();
  }

  async #loop(session: OrsSession, signal: AbortSignal): Promise<StopReason> {
    const o = this.#o;
    const fold = this.#fold;
    for (let turn = 1; turn <= o.maxTurns; turn++) {
      signal.throwIfAborted();
      this.#receiveMessages(turn);
      const calls = await this.#modelTurn(turn, signal);
      if (calls.length === 0) {
        if (turn === o.maxTurns) return 'no_tool_calls';
        // A message that came while the model answered is answered next; chat mode waits for one.
        if (o.inbox?.hasMessages) continue;
        if (o.inbox && o.inputTimeoutMs !== undefined) {
          const input = { inbox: o.inbox, emit: (event: RunEventInput) => this.#emit(event), now: this.#now };
          const timeoutMs = o.inputTimeoutMs;
          if (await this.#observer.wait('input', () => awaitInput(turn, signal, { ...input, timeoutMs }))) continue;
        }
        return 'no_tool_calls';
      }
      // Only the first calls of a turn run or wait for a decision (§1.6); the rest are refused one by one.
      const cap = this.#caps.maxToolCallsPerTurn;
      const refusal =
        calls.length <= cap
          ? undefined
          : `Not run: this turn made ${calls.length} tool calls, and at most ${cap} run per turn ` +
            '(RUNBRIDGE_MAX_TOOL_CALLS_PER_TURN). Make fewer calls at a time.';
      const verdicts = await this.#approvals(calls, cap, turn, signal);
      for (const [position, call] of calls.entries()) {
        // The episode is over: later calls of the same turn are not sent (the fold still gives
        // each a result in the conversation, so it stays valid for every provider).
        if (fold.finished) break;
        const verdict = verdicts.get(call.id);
        // A denied call never reaches the environment; its resolution told the model so.
        if (verdict?.decision === 'deny') continue;
        const refused = position < cap ? undefined : refusal;
        await this.#toolCall(session, call, turn, signal, { approved: verdict?.arguments, refused });
      }
      if (fold.finished) return 'finished';
    }
    return 'max_turns';
  }

  /** Takes the messages people sent into the conversation, before the model turn that reads them. */
  #receiveMessages(turn: number): void {
    for (const message of this.#o.inbox?.takeMessages() ?? []) {
      this.#emit({ event: 'message.received', message_id: message.messageId, content: message.content, turn });
    }
  }

  /**
   * Holds the turn's calls that need a person's decision until every one is decided (docs/protocol.md
   * §7) — of its first `cap` calls: the others are not run (§1.6). Once any call is held, every call
   * of the turn takes its index now, so indexes still follow the order the model made the calls in.
   */
  async #approvals(
    calls: readonly ToolCall[],
    cap: number,
    turn: number,
    signal: AbortSignal,
  ): Promise<Map<string, Verdict>> {
    const { inbox, approval } = this.#o;
    if (!inbox || !approval) return new Map();
    const held = heldCalls(calls.slice(0, cap), this.#fold.tools, approval);
    if (held.length === 0) return new Map();
    const indexes = new Map(calls.map((call) => [call.id, this.#callIndexes.announce(call.id).index]));
    const gated: GatedCall[] = held.map((entry) => ({ ...entry, callIndex: indexes.get(entry.call.id)! }));
    // The pending-approvals gauge follows the calls as they are held and decided, and is settled
    // however the wait ends.
    let pending = 0;
    const emit = (event: RunEventInput, detail?: EventDetail) => {
      this.#emit(event, detail);
      const delta =
        event.event === 'tool.approval_required' ? 1 : event.event === 'tool.approval_resolved' && pending > 0 ? -1 : 0;
      pending += delta;
      if (delta !== 0) this.#observer.approvals(delta);
    };
    try {
      return await this.#observer.wait('approval', () =>
        awaitApprovals(gated, turn, signal, { policy: approval, inbox, emit, now: this.#now }),
      );
    } finally {
      if (pending > 0) this.#observer.approvals(-pending);
    }
  }

  /** Streams one model turn, emitting its text and reasoning as they come; returns its tool calls. */
  #modelTurn(turn: number, signal: AbortSignal): Promise<ToolCall[]> {
    const o = this.#o;
    const call = {
      turn,
      model: o.model.id,
      sampling: o.sampling ?? {},
      messages: () => this.#fold.messages.map(messageToWire),
    };
    return this.#observer.modelCall(call, (result) => this.#streamTurn(turn, signal, result));
  }

  async #streamTurn(turn: number, signal: AbortSignal, result: ModelCallResult): Promise<ToolCall[]> {
    const o = this.#o;
    const started = this.#now();
    let streamedReasoning = '';
    const reasoning: ReasoningBlock[] = [];
    const calls: ToolCall[] = [];
    let usage = { inputTokens: 0, outputTokens: 0 };
    let finish: { reason: ModelFinishReason; raw?: string } | undefined;
    let tokenData: TokenData | undefined;
    // Counted before each part is published: a turn over the cap throws here, which closes the stream.
    const meter = new TurnOutputMeter(this.#caps.maxTurnOutputChars, turn);
    // Pieces are redacted across pieces: a secret spelled out a few characters at a time is none in each.
    const pieces = this.#redact?.streams() ?? VERBATIM;
    /** The calls whose arguments streamed, for what their pieces held back at the end. */
    const announced = new Map<string, { tool: string; call_index: number }>();

    this.#callIndexes.beginTurn();
    const stream = o.model.stream({
      messages: this.#fold.messages,
      tools: this.#fold.tools,
      sampling: o.sampling ?? {},
      signal,
    });
    try {
      for await (const part of stream) {
        switch (part.type) {
          case 'text-delta': {
            if (part.delta === '') break;
            meter.text(part.delta.length);
            const delta = pieces.push(TEXT, part.delta);
            if (delta !== '') this.#emit({ event: 'message.delta', delta, turn });
            break;
          }
          case 'reasoning-delta': {
            if (part.delta === '') break;
            meter.reasoningDelta(part.delta.length);
            streamedReasoning += part.delta;
            const delta = pieces.push(REASONING, part.delta);
            if (delta !== '') this.#emit({ event: 'reasoning.delta', delta, turn });
            break;
          }
          case 'reasoning':
            meter.reasoningBlock(part.block.text.length);
            reasoning.push(part.block);
            break;
          case 'tool-call-delta': {
            meter.argumentsDelta(part.id, part.delta.length);
            const { index, first } = this.#callIndexes.announce(part.id);
            const delta = pieces.push(`call:${part.id}`, part.delta);
            if (!first && delta === '') break;
            const { id: tool_call_id, name: tool } = part;
            this.#emit({ event: 'tool.arguments.delta', tool, tool_call_id, delta, turn, call_index: index });
            announced.set(tool_call_id, { tool, call_index: index });
            break;
          }
          case 'tool-call':
            meter.call(part.call.id, part.call.arguments.length);
            calls.push(part.call);
            break;
          case 'usage':
            usage = part.usage;
            break;
          case 'token-data':
            meter.tokenData(JSON.stringify(part.data).length);
            tokenData = addTokenData(tokenData, part.data);
            break;
          case 'finish':
            finish = { reason: part.reason, raw: part.rawReason };
            break;
        }
      }
    } finally {
      this.#timing.modelMs += this.#now() - started;
    }
    // What the pieces held back, now that the turn is over.
    const text = pieces.end(TEXT);
    if (text !== '') this.#emit({ event: 'message.delta', delta: text, turn });
    const thought = pieces.end(REASONING);
    if (thought !== '') this.#emit({ event: 'reasoning.delta', delta: thought, turn });
    for (const [tool_call_id, { tool, call_index }] of announced) {
      const delta = pieces.end(`call:${tool_call_id}`);
      if (delta !== '') this.#emit({ event: 'tool.arguments.delta', tool, tool_call_id, delta, turn, call_index });
    }
    const durationMs = this.#now() - started;
    const finishReason: FinishReason =
      finish === undefined ? (calls.length > 0 ? 'tool_calls' : 'stop') : wireFinishReason(finish.reason);
    result.inputTokens = usage.inputTokens;
    result.outputTokens = usage.outputTokens;
    result.finishReason = finishReason;
    // Once turn.completed is folded, the conversation ends with this turn's answer.
    result.output = () => messageToWire(this.#fold.messages.at(-1)!);

    const reasoningText = reasoning.length > 0 ? reasoning.map((block) => block.text).join('\n\n') : streamedReasoning;
    if (reasoningText !== '') this.#emit({ event: 'reasoning.available', text: reasoningText, turn });
    this.#emit(
      {
        event: 'turn.completed',
        turn,
        finish_reason: finishReason,
        usage: {
          input_tokens: usage.inputTokens,
          output_tokens: usage.outputTokens,
          total_tokens: usage.inputTokens + usage.outputTokens,
        },
      },
      {
        turn: {
          reasoning: reasoningToWire(reasoning),
          tool_calls: calls.map((call) => ({ id: call.id, name: call.name, arguments: call.arguments })),
          ...(finish?.raw === undefined ? {} : { raw_finish_reason: finish.raw }),
          ...(tokenData === undefined ? {} : { token_data: tokenDataToWire(tokenData) }),
          duration_ms: durationMs,
        },
      },
    );
    return calls;
  }

  /**
   * Sends one call (with `approved` arguments when a decision settled them) and emits its result —
   * also when the call throws (a cancel, a lost result or session), so the call is counted wherever
   * its reward and tool message are. A `refused` call is not sent: that text is its error.
   */
  async #toolCall(
    session: OrsSession,
    call: ToolCall,
    turn: number,
    signal: AbortSignal,
    { approved, refused }: { approved?: Record<string, unknown> | undefined; refused?: string | undefined } = {},
  ): Promise<void> {
    const callIndex = this.#callIndexes.start(call.id);
    // An approved call runs with the arguments its approval settled on, a person's edit included.
    const parsed = approved ?? parseToolArguments(call.arguments);
    // Redacted before the preview cuts them, so no secret is cut in two.
    this.#emit({
      event: 'tool.started',
      tool: call.name,
      tool_call_id: call.id,
      arguments: parsed ?? {},
      preview: parsed ? toolPreview(redactValue(this.#redact, parsed)) : this.#redactText(call.arguments).slice(0, 120),
      turn,
      call_index: callIndex,
    });
    // What spans record (with message content on) is cut like everything the run writes.
    const redact = this.#redact;
    const info = { name: call.name, callId: call.id, arguments: () => redactValue(redact, parsed ?? call.arguments) };
    await this.#observer.toolCall(info, (observed) =>
      this.#sendTool(session, { call, turn, callIndex, parsed, refused }, signal, observed),
    );
  }

  /** The body of {@link #toolCall}: sends the call, tells `observed` how it came out, emits `tool.completed`. */
  async #sendTool(
    session: OrsSession,
    {
      call,
      turn,
      callIndex,
      parsed,
      refused,
    }: { call: ToolCall; turn: number; callIndex: number; parsed: ToolArguments; refused: string | undefined },
    signal: AbortSignal,
    observed: ToolCallResult,
  ): Promise<void> {
    const tools = this.#fold.tools;
    const started = this.#now();
    const result: ToolResult = { output: undefined, errorMessage: undefined };
    try {
      if (refused !== undefined) {
        // Past the turn's cap: answered as a call to an unknown tool, never sent (docs/protocol.md §1.6).
        observed.errorType = 'unknown_tool';
        result.errorMessage = refused;
      } else if (parsed === null) {
        observed.errorType = 'invalid_arguments';
        result.errorMessage = `The arguments of ${call.name} are not a JSON object: ${this.#redactText(call.arguments).slice(0, 200)}. Call the tool again with valid JSON.`;
      } else if (!tools.some((tool) => tool.name === call.name)) {
        observed.errorType = 'unknown_tool';
        result.errorMessage = `There is no tool named "${call.name}". Available tools: ${tools.map((tool) => tool.name).join(', ')}.`;
      } else {
        const progress = { tool: call.name, tool_call_id: call.id, turn, call_index: callIndex };
        const outcome = await withToolProgress(
          { periodMs: this.#o.toolProgressMs, now: this.#now, emit: (event) => this.#emit(event), call: progress },
          () => session.call(call.name, parsed, { signal }),
        );
        switch (outcome.type) {
          case 'output': {
            // Redacted as it arrives: the event and the stored result each keep a cut of it.
            const output = redactValue(this.#redact, outcome.output);
            const { blocks } = output;
            result.output = output;
            observed.output = () => redactValue(this.#redact, blocksToText(blocks));
            break;
          }
          case 'tool_error':
          case 'server_error':
            observed.errorType = outcome.type === 'tool_error' ? 'tool_error' : 'ors_server_error';
            result.errorMessage = outcome.error;
            break;
          case 'unknown_task':
            // The tool may have run, but its result is gone; calling it again could run it twice.
            throw new RunbridgeError(
              `The result of ${call.name} was lost: the ORS server no longer knows task ${outcome.taskId} after a reconnect.`,
              { code: 'ors_result_lost' },
            );
        }
      }
    } catch (error) {
      result.errorMessage = signal.aborted
        ? abortMessage(signal)
        : error instanceof Error
          ? error.message
          : String(error);
      throw error;
    } finally {
      const durationMs = this.#now() - started;
      this.#timing.envMs += durationMs;
      this.#complete(call, turn, callIndex, result, durationMs);
    }
  }

  /**
   * Emits `tool.completed`, its output cut at the configured bound; for a result, the entry's detail
   * keeps the metadata and, unless the output says it all, the content — up to the stored bound, past
   * which it is cut with a note (docs/protocol.md §1.7), as a tool's error message is.
   */
  #complete(call: ToolCall, turn: number, callIndex: number, result: ToolResult, durationMs: number): void {
    const o = this.#o;
    const stored = this.#caps.toolOutputStoredChars;
    const output = result.errorMessage === undefined ? result.output : undefined;
    const text = output
      ? blocksToText(output.blocks)
      : cutToolText(this.#redactText(result.errorMessage ?? 'The tool failed.'), stored);
    const cut = text.length > o.toolOutputEventChars;
    const kept = output && cutToolContent(blocksToContent(output.blocks), stored);
    const whole =
      kept !== undefined && !kept.truncated && kept.parts.length === 1 && kept.parts[0]!.type === 'text' && !cut;
    const detail: EventDetail | undefined = output && {
      tool: {
        metadata: output.metadata,
        ...(whole ? {} : { content: partsToWire(kept!.parts) }),
        ...(kept?.truncated ? { truncated: true as const } : {}),
      },
    };
    this.#emit(
      {
        event: 'tool.completed',
        tool: call.name,
        tool_call_id: call.id,
        duration: durationMs / 1000,
        error: !output,
        ...(output ? {} : { error_message: text }),
        output: cut ? text.slice(0, o.toolOutputEventChars) : text,
        ...(cut ? { truncated: true } : {}),
        reward: output?.reward ?? null,
        finished: output?.finished ?? false,
        turn,
        call_index: callIndex,
      },
      detail,
    );
  }

  /** `text` without the run's and the bridge's secrets; for what is cut before it is written. */
  #redactText(text: string): string {
    return this.#redact ? this.#redact.text(text) : text;
  }

  async #timed<T>(bucket: 'envMs' | 'modelMs', work: () => Promise<T>): Promise<T> {
    const started = this.#now();
    try {
      return await work();
    } finally {
      this.#timing[bucket] += this.#now() - started;
    }
  }
}

/** The pieces of a run without secrets: published as they come. */
const VERBATIM: StreamRedactor = { push: (_key, piece) => piece, end: () => '' };
/** The streams of a turn besides its calls' arguments (keyed `call:` and the call's id). */
const TEXT = 'text';
const REASONING = 'reasoning';

/** A tool call's arguments as an object, or null when they are not a JSON object. */
type ToolArguments = Record<string, unknown> | null;

/** `value` without the run's secrets (as is, in a run without any). */
function redactValue<T>(redact: RunDataRedactor | undefined, value: T): T {
  return redact ? redact.value(value) : value;
}

/** How one tool call came out: the tool's output, or why there is none. */
interface ToolResult {
  output: ToolOutput | undefined;
  errorMessage: string | undefined;
}
