import { type Attributes, type Context, context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR_ERROR_TYPE } from '@opentelemetry/semantic-conventions';
import { splitModelRef } from '../protocol/run-request.js';
import type { BridgeMetrics } from './bridge-metrics.js';
import { GEN_AI, genAiProviderName } from './gen-ai-attributes.js';
import { logRunEnd } from './log-run-end.js';
import type { Logger } from './logger.js';
import type { OtelTracing } from './otel-tracing.js';
import { runLogFields } from './run-log-fields.js';
import type {
  ModelCallInfo,
  ModelCallResult,
  ObservedRun,
  RunObserver,
  RunOutcome,
  ToolCallInfo,
  ToolCallResult,
} from './run-observer.js';

/** The names of the ORS and waiting spans. */
const STEP_SPANS = {
  setup: 'ors.session.setup',
  teardown: 'ors.session.teardown',
  approval: 'await_approval',
  input: 'await_input',
} as const;

/**
 * A {@link RunObserver} feeding the log, the metrics and, when tracing, one `invoke_agent {env}` span
 * per run, a child of the span its record names, with a `chat {model}` span per model call, an
 * `execute_tool {name}` span per tool call, and spans for the ORS session's setup and teardown and
 * for each wait on a person (attributes after the OpenTelemetry GenAI semantic conventions).
 */
export class BridgeRunObserver implements RunObserver {
  readonly log: Logger;
  readonly #run: ObservedRun;
  readonly #metrics: BridgeMetrics;
  readonly #otel: OtelTracing | undefined;
  readonly #span: Span | undefined;
  readonly #context: Context | undefined;
  readonly #provider: string;
  readonly #modelName: string;
  readonly #started = performance.now();
  /** Seconds of the turn under way (its model call and tool calls), or undefined before the first. */
  #turnSeconds: number | undefined;

  constructor(run: ObservedRun, deps: { logger: Logger; metrics: BridgeMetrics; otel: OtelTracing | undefined }) {
    this.#run = run;
    this.#metrics = deps.metrics;
    this.#otel = deps.otel;
    // A provider without model names (offline) gives its own name as the model's.
    const { provider, name = provider } = splitModelRef(run.model);
    this.#provider = provider;
    this.#modelName = name;
    const fields = runLogFields(run);
    if (deps.otel) {
      const parent = deps.otel.extract(run.trace as Record<string, string> | undefined);
      this.#span = deps.otel.tracer.startSpan(
        `invoke_agent ${run.env}`,
        {
          kind: SpanKind.INTERNAL,
          attributes: {
            [GEN_AI.operationName]: 'invoke_agent',
            [GEN_AI.agentName]: run.env,
            [GEN_AI.conversationId]: run.id,
            [GEN_AI.providerName]: genAiProviderName(provider),
            [GEN_AI.requestModel]: name,
          },
        },
        parent,
      );
      this.#context = trace.setSpan(parent, this.#span);
      // A run made while no trace was active starts its own: its lines carry that one.
      fields.trace_id = this.#span.spanContext().traceId;
    }
    this.log = deps.logger.child(fields);
    this.#metrics.runStarted(run.env);
    this.log.info({ env: run.env, model: run.model }, 'run started');
  }

  within<T>(work: () => Promise<T>): Promise<T> {
    return this.#context === undefined ? work() : context.with(this.#context, work);
  }

  async modelCall<T>(info: ModelCallInfo, work: (result: ModelCallResult) => Promise<T>): Promise<T> {
    this.#endTurn();
    this.#turnSeconds = 0;
    const result: ModelCallResult = { inputTokens: 0, outputTokens: 0, finishReason: undefined, output: undefined };
    const span = this.#otel && this.#startSpan(`chat ${this.#modelName}`, SpanKind.CLIENT, this.#chatAttributes(info));
    const started = performance.now();
    let errorType: string | undefined;
    try {
      return await this.#inSpan(span, () => work(result));
    } catch (error) {
      errorType = errorTypeOf(error);
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      this.#turnSeconds += seconds;
      this.#metrics.modelCall({
        provider: this.#provider,
        model: this.#modelName,
        ref: this.#run.model,
        seconds,
        inputTokens: result.inputTokens,
        outputTokens: result.outputTokens,
        errorType,
      });
      if (errorType?.startsWith('model_')) {
        this.log.warn({ code: errorType, provider: this.#provider, turn: info.turn }, 'model call failed');
      }
      if (span) {
        span.setAttributes({
          [GEN_AI.responseModel]: this.#modelName,
          [GEN_AI.usageInputTokens]: result.inputTokens,
          [GEN_AI.usageOutputTokens]: result.outputTokens,
          ...(result.finishReason === undefined ? {} : { [GEN_AI.responseFinishReasons]: [result.finishReason] }),
          ...(this.#otel?.captureContent && result.output
            ? { [GEN_AI.outputMessages]: this.#otel.cut(json(result.output())) }
            : {}),
        });
        endSpan(span, errorType);
      }
    }
  }

  async toolCall<T>(info: ToolCallInfo, work: (result: ToolCallResult) => Promise<T>): Promise<T> {
    const result: ToolCallResult = { errorType: undefined, output: undefined };
    // The name is the model's: as long as it likes.
    const name = this.#otel?.cut(info.name);
    const span =
      this.#otel &&
      this.#startSpan(`execute_tool ${name}`, SpanKind.INTERNAL, {
        [GEN_AI.operationName]: 'execute_tool',
        [GEN_AI.toolName]: name,
        [GEN_AI.toolType]: 'function',
        [GEN_AI.toolCallId]: info.callId,
        ...(this.#otel.captureContent ? { [GEN_AI.toolCallArguments]: this.#otel.cut(json(info.arguments())) } : {}),
      });
    const started = performance.now();
    let thrown: string | undefined;
    try {
      return await this.#inSpan(span, () => work(result));
    } catch (error) {
      thrown = errorTypeOf(error);
      throw error;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      if (this.#turnSeconds !== undefined) this.#turnSeconds += seconds;
      this.#metrics.toolCall(this.#run.env, seconds);
      const errorType = thrown ?? result.errorType;
      this.#orsFailure(errorType, `tool call ${info.name} failed`);
      if (span) {
        if (this.#otel?.captureContent && result.output)
          span.setAttribute(GEN_AI.toolCallResult, this.#otel.cut(json(result.output())));
        endSpan(span, errorType);
      }
    }
  }

  async orsSession<T>(step: 'setup' | 'teardown', work: () => Promise<T>): Promise<T> {
    try {
      return await this.#step(STEP_SPANS[step], work);
    } catch (error) {
      this.#orsFailure(errorTypeOf(error), `ORS session ${step} failed`);
      throw error;
    }
  }

  wait<T>(kind: 'approval' | 'input', work: () => Promise<T>): Promise<T> {
    return this.#step(STEP_SPANS[kind], work);
  }

  approvals(delta: number): void {
    this.#metrics.approvalsPending(delta);
  }

  end(outcome: RunOutcome): void {
    this.#endTurn();
    this.#metrics.runFinished(this.#run.env, outcome.status);
    this.#metrics.runStopped();
    logRunEnd(this.log, this.#run, outcome, Math.round(performance.now() - this.#started));
    if (this.#span) {
      this.#span.setAttributes({
        [GEN_AI.usageInputTokens]: outcome.inputTokens,
        [GEN_AI.usageOutputTokens]: outcome.outputTokens,
      });
      endSpan(this.#span, outcome.status === 'failed' ? outcome.errorCode : undefined);
    }
  }

  endedElsewhere(here: RunOutcome): void {
    this.#endTurn();
    this.#metrics.runStopped();
    this.log.warn(
      {
        env: this.#run.env,
        model: this.#run.model,
        status_here: here.status,
        reward_here: here.reward,
        turns_here: here.turns,
        code: 'instance_lost',
      },
      'run ended elsewhere: its end here was not stored; another instance ended it (or will) as instance_lost, and logs and counts that end',
    );
    if (this.#span) endSpan(this.#span, 'instance_lost');
  }

  #chatAttributes(info: ModelCallInfo): Attributes {
    const { temperature, top_p, max_tokens, seed } = info.sampling;
    return {
      [GEN_AI.operationName]: 'chat',
      [GEN_AI.providerName]: genAiProviderName(this.#provider),
      [GEN_AI.requestModel]: this.#modelName,
      [GEN_AI.conversationId]: this.#run.id,
      ...(temperature === undefined ? {} : { [GEN_AI.requestTemperature]: temperature }),
      ...(top_p === undefined ? {} : { [GEN_AI.requestTopP]: top_p }),
      ...(max_tokens === undefined ? {} : { [GEN_AI.requestMaxTokens]: max_tokens }),
      ...(seed === undefined ? {} : { [GEN_AI.requestSeed]: seed }),
      ...(this.#otel?.captureContent ? { [GEN_AI.inputMessages]: this.#otel.cut(json(info.messages())) } : {}),
    };
  }

  /** Runs `work` in a span named `name` (none without tracing), which fails with the error's code. */
  async #step<T>(name: string, work: () => Promise<T>): Promise<T> {
    const span = this.#otel && this.#startSpan(name, SpanKind.INTERNAL, { [GEN_AI.conversationId]: this.#run.id });
    if (!span) return work();
    let errorType: string | undefined;
    try {
      return await this.#inSpan(span, work);
    } catch (error) {
      errorType = errorTypeOf(error);
      throw error;
    } finally {
      endSpan(span, errorType);
    }
  }

  #startSpan(name: string, kind: SpanKind, attributes: Attributes): Span {
    return this.#otel!.tracer.startSpan(name, { kind, attributes }, context.active());
  }

  #inSpan<T>(span: Span | undefined, work: () => Promise<T>): Promise<T> {
    return span === undefined ? work() : context.with(trace.setSpan(context.active(), span), work);
  }

  /** Counts and logs a failure of the ORS server (an `ors_…` code). */
  #orsFailure(errorType: string | undefined, message: string): void {
    if (!errorType?.startsWith('ors_')) return;
    this.#metrics.orsError(errorType);
    this.log.warn({ code: errorType }, message);
  }

  #endTurn(): void {
    if (this.#turnSeconds !== undefined) this.#metrics.turn(this.#turnSeconds);
    this.#turnSeconds = undefined;
  }
}

/** `error.type` of a failure: its runbridge code, else the error's name. */
function errorTypeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'Error';
}

function endSpan(span: Span, errorType: string | undefined): void {
  if (errorType !== undefined) {
    span.setAttribute(ATTR_ERROR_TYPE, errorType);
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

function json(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}
