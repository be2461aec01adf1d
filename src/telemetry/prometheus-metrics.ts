import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { BoundedLabel, OTHER_LABEL } from './bounded-label.js';
import type { BridgeMetrics, DeliveryOutcome, ModelCallSample } from './bridge-metrics.js';
import type { MetricsSnapshot, ScrapePage } from './metrics-snapshot.js';

/** Environments past these many read `other` (each is one series per other label). */
const MAX_ENVS = 100;

/** The OpenTelemetry GenAI semantic conventions' advised buckets: tokens, and seconds of a call. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const CALL_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TURN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 120, 300];
const TOOL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * Node's process and event-loop metrics (prom-client's defaults), registered once per process: they
 * describe the process, whatever bridges it holds, and prom-client cannot stop them — each
 * registration keeps an event-loop-delay monitor and a garbage-collection observer running for the
 * life of the process. A bridge made and shut down many times in one process (tests, an embedding
 * app, the benchmarks) added a set each time.
 */
let processRegistry: Registry | undefined;

function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** What {@link PrometheusMetrics} labels by name. */
export interface PrometheusMetricsOptions {
  /**
   * The models (`provider:name`, as a run's `model` reads) whose calls keep their name in the
   * `gen_ai_request_model` label: those the operator configured or listed. Every other reads `other`.
   */
  labelledModels?: Iterable<string>;
}

/**
 * The bridge's metrics in a prom-client registry of its own (not the process-wide default one, so two
 * bridges in one process count apart), served with the process's own metrics. Every instance serves
 * its own, as Prometheus expects; only `runbridge_runs_queued` counts what the instances share.
 *
 * No label holds a string a tenant chose (docs/security.md): a model keeps its name only when the
 * operator configured or listed it, and an environment reads as the ORS server names it (any case
 * finds it, so the caller's spelling is folded to lower case); neither set is one a tenant can fill
 * before the operator's own names are seen.
 */
export class PrometheusMetrics implements BridgeMetrics {
  readonly registry = new Registry();
  readonly #envs = new BoundedLabel(MAX_ENVS);
  readonly #labelledModels: ReadonlySet<string>;
  #readQueued: () => Promise<number> = async () => 0;

  readonly #started = new Counter({
    name: 'runbridge_runs_started_total',
    help: 'Runs this instance started executing, by environment.',
    labelNames: ['env'] as const,
    registers: [this.registry],
  });
  readonly #finished = new Counter({
    name: 'runbridge_runs_finished_total',
    help:
      'Runs whose end this instance wrote, by environment and status (completed, failed, cancelled): those it executed, ' +
      'and those no live instance executed that it ended (failed with instance_lost, or cancelled).',
    labelNames: ['env', 'status'] as const,
    registers: [this.registry],
  });
  readonly #running = new Gauge({
    name: 'runbridge_runs_running',
    help: 'Runs executing on this instance now.',
    registers: [this.registry],
  });
  readonly #streams = new Gauge({
    name: 'runbridge_event_streams_open',
    help: "Event streams open on this instance, by format: a run's stream format (events, openai, …), or rollout-records for a batch's records.",
    labelNames: ['format'] as const,
    registers: [this.registry],
  });
  readonly #turns = new Histogram({
    name: 'runbridge_turn_duration_seconds',
    help: 'One turn: its model call and the tool calls it asked for (waits on a person excluded).',
    buckets: TURN_BUCKETS,
    registers: [this.registry],
  });
  readonly #modelCalls = new Histogram({
    name: 'runbridge_model_call_duration_seconds',
    help: 'One model call, from the request to the end of its stream, by provider.',
    labelNames: ['provider'] as const,
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });
  readonly #modelErrors = new Counter({
    name: 'runbridge_model_errors_total',
    help: 'Model calls that failed, by provider and error code (model_auth, model_unavailable, …).',
    labelNames: ['provider', 'code'] as const,
    registers: [this.registry],
  });
  readonly #toolCalls = new Histogram({
    name: 'runbridge_tool_call_duration_seconds',
    help: 'One tool call to the ORS server, by environment.',
    labelNames: ['env'] as const,
    buckets: TOOL_BUCKETS,
    registers: [this.registry],
  });
  readonly #orsErrors = new Counter({
    name: 'runbridge_ors_errors_total',
    help: 'Failures of the ORS server, by error code (ors_unavailable, ors_server_error, …).',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly #approvals = new Gauge({
    name: 'runbridge_approvals_pending',
    help: 'Tool calls waiting for a decision, in runs executing on this instance.',
    registers: [this.registry],
  });
  readonly #deliveries = new Counter({
    name: 'runbridge_webhook_deliveries_total',
    help: 'Webhook delivery attempts made by this instance, by outcome (delivered, retry, failed: the last one).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly #a2aCalls = new Counter({
    name: 'runbridge_a2a_calls_total',
    help: 'Calls of the A2A endpoint, by method, protocol version (1.0, 0.3) and outcome (ok, or the A2A error reason).',
    labelNames: ['method', 'version', 'outcome'] as const,
    registers: [this.registry],
  });
  readonly #rolloutRecords = new Counter({
    name: 'runbridge_rollout_records_total',
    help: 'Pairs of rollout batches recorded by this instance, by the record status (completed, failed).',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });
  readonly #tokens = new Histogram({
    name: 'gen_ai_client_token_usage',
    help: 'Tokens of one model call (OpenTelemetry GenAI gen_ai.client.token.usage), input or output.',
    labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'gen_ai_token_type'] as const,
    buckets: TOKEN_BUCKETS,
    registers: [this.registry],
  });
  readonly #operations = new Histogram({
    name: 'gen_ai_client_operation_duration_seconds',
    help: 'One model call (OpenTelemetry GenAI gen_ai.client.operation.duration); error_type when it failed.',
    labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'error_type'] as const,
    buckets: CALL_BUCKETS,
    registers: [this.registry],
  });

  constructor(options: PrometheusMetricsOptions = {}) {
    this.#labelledModels = new Set(options.labelledModels);
    const read = () => this.#readQueued();
    new Gauge({
      name: 'runbridge_runs_queued',
      help: 'Runs waiting in the queue. Cluster-wide: with Redis, every instance reports the one shared queue.',
      registers: [this.registry],
      async collect() {
        try {
          this.set(await read());
        } catch {
          // The store does not answer (Redis is down): the last count stands, and the scrape still answers.
        }
      },
    });
  }

  runStarted(env: string): void {
    this.#started.inc({ env: this.#env(env) });
    this.#running.inc();
  }

  runFinished(env: string, status: string): void {
    this.#finished.inc({ env: this.#env(env), status });
  }

  runStopped(): void {
    this.#running.dec();
  }

  turn(seconds: number): void {
    this.#turns.observe(seconds);
  }

  modelCall(sample: ModelCallSample): void {
    const { provider, seconds, errorType } = sample;
    const model = this.#labelledModels.has(sample.ref) ? sample.model : OTHER_LABEL;
    this.#modelCalls.observe({ provider }, seconds);
    const genAi = { gen_ai_operation_name: 'chat', gen_ai_provider_name: provider, gen_ai_request_model: model };
    if (errorType !== undefined) {
      // A call cut short by the run's cancel is timed with its error type, but the provider did not fail.
      if (errorType.startsWith('model_')) this.#modelErrors.inc({ provider, code: errorType });
      this.#operations.observe({ ...genAi, error_type: errorType }, seconds);
      return;
    }
    this.#operations.observe(genAi, seconds);
    this.#tokens.observe({ ...genAi, gen_ai_token_type: 'input' }, sample.inputTokens);
    this.#tokens.observe({ ...genAi, gen_ai_token_type: 'output' }, sample.outputTokens);
  }

  toolCall(env: string, seconds: number): void {
    this.#toolCalls.observe({ env: this.#env(env) }, seconds);
  }

  orsError(code: string): void {
    this.#orsErrors.inc({ code });
  }

  approvalsPending(delta: number): void {
    this.#approvals.inc(delta);
  }

  streamOpened(format: string): () => void {
    this.#streams.inc({ format });
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.#streams.dec({ format });
    };
  }

  webhookDelivery(outcome: DeliveryOutcome): void {
    this.#deliveries.inc({ outcome });
  }

  a2aCall(method: string, version: string, outcome: string): void {
    this.#a2aCalls.inc({ method, version, outcome });
  }

  rolloutRecord(status: 'completed' | 'failed'): void {
    this.#rolloutRecords.inc({ status });
  }

  countQueued(read: () => Promise<number>): void {
    this.#readQueued = read;
  }

  /** The text `GET /metrics` answers, and its content type. */
  async scrape(): Promise<ScrapePage> {
    const registry = this.#withProcess();
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  /** The same metrics as data, for the primary of `serve --workers N` to put on one page with the other workers'. */
  async snapshot(): Promise<MetricsSnapshot> {
    return this.#withProcess().getMetricsAsJSON();
  }

  #withProcess(): Registry {
    return Registry.merge([processMetrics(), this.registry]);
  }

  /** Environments are found in any case (the ORS server's list decides which exist): one label for every spelling. */
  #env(env: string): string {
    return this.#envs.of(env.toLowerCase());
  }
}
