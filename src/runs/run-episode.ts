import { isAbortError, RunbridgeError } from '../errors.js';
import type { Message, ReasoningBlock, ToolCall, ToolDefinition } from '../models/conversation.js';
import type { Model, TokenData } from '../models/model.js';
import type { OrsClient } from '../ors/client/ors-client.js';
import type { OrsSession } from '../ors/client/ors-session.js';
import type { FinishReason, RunEventInput, StopReason, TaskRef, ToolReward, Usage } from '../protocol/run-events.js';
import type { RewardReduction, RunRequest, Sampling } from '../protocol/run-request.js';
import { CallIndexes } from './call-indexes.js';
import type { EpisodeEnd, EpisodeRecord, EpisodeStep, ToolCallRecord } from './episode-record.js';
import {
  blocksToContent,
  blocksToText,
  inputToMessages,
  toolPreview,
  toolSpecToDefinition,
} from './ors-conversation.js';
import { reduceRewards } from './reduce-rewards.js';
import { RunCancelledError } from './run-cancelled-error.js';
import { withToolProgress } from './tool-progress.js';

export interface EpisodeOptions {
  ors: OrsClient;
  model: Model;
  env: string;
  task: TaskRef;
  input?: RunRequest['input'];
  instructions?: string;
  sampling?: Sampling;
  maxTurns: number;
  rewardReduction?: RewardReduction;
  /** Forwarded to ORS `/create` only. */
  secrets?: Record<string, unknown>;
  /** Tool outputs longer than this are cut in `tool.completed` (the record keeps them whole). */
  toolOutputEventChars: number;
  /** Period of `tool.progress` while a tool call runs; undefined sends none. */
  toolProgressMs?: number;
  /** Aborted with a {@link RunCancelledError} to cancel; any other reason fails the run. */
  signal: AbortSignal;
  /** Receives every event in order; a throw (e.g. a full event log) fails the run. */
  emit: (event: RunEventInput) => void;
  now?: () => number;
}

/**
 * Plays one ORS episode (CONTRACT §1): opens a session, reads prompt and tools, loops model turn →
 * tool calls until a tool result says `finished`, the model answers without a tool call, `maxTurns`
 * is reached, the signal aborts, or something fails — and always deletes the session. Every step is
 * emitted as an event, starting with `run.started` and ending with exactly one terminal event, which
 * is written after the session is closed. Never throws; how it ended is in the record's `end`.
 */
export async function runEpisode(options: EpisodeOptions): Promise<EpisodeRecord> {
  return new Episode(options).play();
}

class Episode {
  readonly #o: EpisodeOptions;
  readonly #now: () => number;
  readonly #record: EpisodeRecord;
  readonly #rewardValues: Array<number | null> = [];
  readonly #callIndexes = new CallIndexes();

  constructor(options: EpisodeOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    const startedAt = this.#now();
    this.#record = {
      env: options.env,
      task: options.task,
      model: options.model.id,
      sampling: options.sampling ?? {},
      messages: [],
      tools: [],
      steps: [],
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      rewards: [],
      reward: null,
      finished: false,
      turns: 0,
      output: '',
      end: { status: 'completed', stopReason: 'no_tool_calls' },
      timing: { startedAt, endedAt: startedAt, modelMs: 0, envMs: 0 },
    };
  }

  async play(): Promise<EpisodeRecord> {
    const o = this.#o;
    const record = this.#record;
    let session: OrsSession | undefined;
    try {
      o.emit({ event: 'run.started', env: o.env, task: o.task, model: o.model.id });
      o.signal.throwIfAborted();
      session = await this.#timed('envMs', () =>
        o.ors.openSession({ env: o.env, task: o.task, secrets: o.secrets, signal: o.signal }),
      );
      // From here on, a session that can no longer be kept alive stops the model and the tools too.
      const signal = AbortSignal.any([o.signal, session.lost]);
      const open = session;
      const [blocks, specs] = await this.#timed('envMs', () => Promise.all([open.prompt(signal), open.tools(signal)]));
      record.tools = specs.map(toolSpecToDefinition);
      record.messages = [
        ...(o.instructions ? [{ role: 'system' as const, content: o.instructions }] : []),
        { role: 'user', content: blocksToContent(blocks) },
        ...inputToMessages(o.input),
      ];
      record.end = { status: 'completed', stopReason: await this.#loop(open, signal) };
    } catch (error) {
      record.end = endFromError(error, o.signal);
    } finally {
      if (session) {
        const open = session;
        await this.#timed('envMs', () => open.close());
      }
    }
    record.timing.endedAt = this.#now();
    this.#emitTerminal();
    return record;
  }

  async #loop(session: OrsSession, signal: AbortSignal): Promise<StopReason> {
    const o = this.#o;
    const record = this.#record;
    for (let turn = 1; turn <= o.maxTurns; turn++) {
      signal.throwIfAborted();
      const step = await this.#modelTurn(turn, signal);
      record.turns = turn;
      record.output = step.text;
      if (step.calls.length === 0) return 'no_tool_calls';
      for (const call of step.calls) {
        if (record.finished) {
          // The episode is over; later calls of the same turn are not sent, but each call still
          // gets a result so the conversation stays valid for every provider.
          this.#pushToolMessage(call, 'Not run: the episode had already finished.', true);
          continue;
        }
        await this.#toolCall(session, step.record, call, turn, signal, record.tools);
      }
      if (record.finished) return 'finished';
    }
    return 'max_turns';
  }

  async #modelTurn(
    turn: number,
    signal: AbortSignal,
  ): Promise<{ text: string; calls: ToolCall[]; record: EpisodeStep }> {
    const o = this.#o;
    const started = this.#now();
    let text = '';
    let streamedReasoning = '';
    const reasoning: ReasoningBlock[] = [];
    const calls: ToolCall[] = [];
    let usage = { inputTokens: 0, outputTokens: 0 };
    let finish: { reason: FinishReason; raw?: string } | undefined;
    let tokenData: TokenData | undefined;

    this.#callIndexes.beginTurn();
    const stream = o.model.stream({
      messages: this.#record.messages,
      tools: this.#record.tools,
      sampling: this.#record.sampling,
      signal,
    });
    try {
      for await (const part of stream) {
        switch (part.type) {
          case 'text-delta':
            if (part.delta === '') break;
            text += part.delta;
            o.emit({ event: 'message.delta', delta: part.delta, turn });
            break;
          case 'reasoning-delta':
            if (part.delta === '') break;
            streamedReasoning += part.delta;
            o.emit({ event: 'reasoning.delta', delta: part.delta, turn });
            break;
          case 'reasoning':
            reasoning.push(part.block);
            break;
          case 'tool-call-delta': {
            const { index, first } = this.#callIndexes.announce(part.id);
            if (!first && part.delta === '') break;
            const { id: tool_call_id, name: tool, delta } = part;
            o.emit({ event: 'tool.arguments.delta', tool, tool_call_id, delta, turn, call_index: index });
            break;
          }
          case 'tool-call':
            calls.push(part.call);
            break;
          case 'usage':
            usage = part.usage;
            break;
          case 'token-data':
            tokenData = { ...tokenData, ...part.data };
            break;
          case 'finish':
            finish = { reason: part.reason, raw: part.rawReason };
            break;
        }
      }
    } finally {
      this.#record.timing.modelMs += this.#now() - started;
    }

    const reasoningText = reasoning.length > 0 ? reasoning.map((block) => block.text).join('\n\n') : streamedReasoning;
    if (reasoningText !== '') o.emit({ event: 'reasoning.available', text: reasoningText, turn });
    const turnUsage: Usage = {
      input_tokens: usage.inputTokens,
      output_tokens: usage.outputTokens,
      total_tokens: usage.inputTokens + usage.outputTokens,
    };
    const finishReason = finish?.reason ?? (calls.length > 0 ? 'tool_calls' : 'stop');
    o.emit({ event: 'turn.completed', turn, finish_reason: finishReason, usage: turnUsage });

    const total = this.#record.usage;
    total.input_tokens += turnUsage.input_tokens;
    total.output_tokens += turnUsage.output_tokens;
    total.total_tokens += turnUsage.total_tokens;
    this.#record.messages.push({ role: 'assistant', content: text, reasoning, toolCalls: calls });
    const step: EpisodeStep = {
      turn,
      finishReason,
      ...(finish?.raw === undefined ? {} : { rawFinishReason: finish.raw }),
      usage: turnUsage,
      text,
      reasoning: reasoningText,
      toolCalls: [],
      ...(tokenData === undefined ? {} : { tokenData }),
      modelMs: this.#now() - started,
    };
    this.#record.steps.push(step);
    return { text, calls, record: step };
  }

  /**
   * Sends one call and folds its result into `step` and the record — also when the call throws (a
   * cancel, a lost result or session), so the call is counted wherever its reward and tool message are.
   */
  async #toolCall(
    session: OrsSession,
    step: EpisodeStep,
    call: ToolCall,
    turn: number,
    signal: AbortSignal,
    tools: readonly ToolDefinition[],
  ): Promise<void> {
    const o = this.#o;
    const callIndex = this.#callIndexes.start(call.id);
    const parsed = parseArguments(call.arguments);
    o.emit({
      event: 'tool.started',
      tool: call.name,
      tool_call_id: call.id,
      arguments: parsed ?? {},
      preview: parsed ? toolPreview(parsed) : call.arguments.slice(0, 120),
      turn,
      call_index: callIndex,
    });
    const started = this.#now();
    const result: ToolCallRecord = {
      id: call.id,
      name: call.name,
      arguments: call.arguments,
      parsedArguments: parsed,
      output: '',
      blocks: [],
      metadata: null,
      reward: null,
      finished: false,
      error: true,
      durationMs: 0,
    };
    try {
      if (parsed === null) {
        result.errorMessage = `The arguments of ${call.name} are not a JSON object: ${call.arguments.slice(0, 200)}. Call the tool again with valid JSON.`;
      } else if (!tools.some((tool) => tool.name === call.name)) {
        result.errorMessage = `There is no tool named "${call.name}". Available tools: ${tools.map((tool) => tool.name).join(', ')}.`;
      } else {
        const progress = { tool: call.name, tool_call_id: call.id, turn, call_index: callIndex };
        const outcome = await withToolProgress(
          { periodMs: o.toolProgressMs, now: this.#now, emit: o.emit, call: progress },
          () => session.call(call.name, parsed, { signal }),
        );
        switch (outcome.type) {
          case 'output':
            result.error = false;
            result.blocks = outcome.output.blocks;
            result.metadata = outcome.output.metadata;
            result.output = blocksToText(outcome.output.blocks);
            result.reward = outcome.output.reward;
            result.finished = outcome.output.finished;
            break;
          case 'tool_error':
          case 'server_error':
            result.errorMessage = outcome.error;
            break;
          case 'unknown_task':
            // The tool may have run, but its result is gone; calling it again could run it twice.
            throw new RunbridgeError(
              `The result of ${call.name} was lost: the ORS server no longer knows task ${outcome.taskId} after a reconnect.`,
              { code: 'ors_result_lost', status: 502 },
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
      result.durationMs = this.#now() - started;
      this.#record.timing.envMs += result.durationMs;
      this.#complete(step, call, turn, callIndex, result);
    }
  }

  /** Emits `tool.completed` and folds the result into its step, the rewards and the conversation. */
  #complete(step: EpisodeStep, call: ToolCall, turn: number, callIndex: number, result: ToolCallRecord): void {
    const o = this.#o;
    const text = result.error ? (result.errorMessage ?? 'The tool failed.') : result.output;
    const cut = text.length > o.toolOutputEventChars;
    o.emit({
      event: 'tool.completed',
      tool: call.name,
      tool_call_id: call.id,
      duration: result.durationMs / 1000,
      error: result.error,
      ...(result.error ? { error_message: result.errorMessage ?? 'The tool failed.' } : {}),
      output: cut ? text.slice(0, o.toolOutputEventChars) : text,
      ...(cut ? { truncated: true } : {}),
      reward: result.reward,
      finished: result.finished,
      turn,
      call_index: callIndex,
    });
    step.toolCalls.push(result);
    this.#rewardValues.push(result.reward);
    this.#record.rewards.push({
      tool_call_id: call.id,
      tool: call.name,
      turn,
      reward: result.reward,
    } satisfies ToolReward);
    this.#record.reward = reduceRewards(this.#rewardValues, o.rewardReduction);
    if (result.finished) this.#record.finished = true;
    if (result.error) {
      this.#pushToolMessage(call, text, true);
    } else {
      this.#record.messages.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: blocksToContent(result.blocks),
        isError: false,
      });
    }
  }

  #pushToolMessage(call: ToolCall, text: string, isError: boolean): void {
    const message: Message = {
      role: 'tool',
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: 'text', text }],
      isError,
    };
    this.#record.messages.push(message);
  }

  #emitTerminal(): void {
    const o = this.#o;
    const record = this.#record;
    const end = record.end;
    switch (end.status) {
      case 'completed':
        o.emit({
          event: 'run.completed',
          output: record.output,
          usage: { ...record.usage },
          reward: record.reward,
          rewards: record.rewards,
          finished: record.finished,
          turns: record.turns,
          stop_reason: end.stopReason,
        });
        break;
      case 'failed':
        o.emit({ event: 'run.failed', error: end.message, code: end.code });
        break;
      case 'cancelled':
        o.emit({ event: 'run.cancelled', reason: end.reason });
        break;
    }
  }

  async #timed<T>(bucket: 'envMs' | 'modelMs', work: () => Promise<T>): Promise<T> {
    const started = this.#now();
    try {
      return await work();
    } finally {
      this.#record.timing[bucket] += this.#now() - started;
    }
  }
}

function parseArguments(text: string): Record<string, unknown> | null {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

function abortMessage(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof RunCancelledError) return `Cancelled: ${reason.message}`;
  return reason instanceof Error ? reason.message : 'Aborted.';
}

/** Classifies what stopped an episode. A cancel wins over the error it caused downstream. */
function endFromError(error: unknown, runSignal: AbortSignal): EpisodeEnd {
  const cancel = runSignal.aborted ? runSignal.reason : error;
  if (cancel instanceof RunCancelledError) return { status: 'cancelled', reason: cancel.reason };
  if (runSignal.aborted && isAbortError(error)) return { status: 'cancelled', reason: 'client' };
  if (error instanceof RunbridgeError) return { status: 'failed', code: error.code, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { status: 'failed', code: 'internal_error', message: `Internal error: ${message}` };
}
