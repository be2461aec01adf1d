import {
  type Context,
  context,
  defaultTextMapGetter,
  diag,
  propagation,
  ROOT_CONTEXT,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import type { Config } from '../config/index.js';
import { PACKAGE_VERSION } from '../package-version.js';
import type { Logger } from './logger.js';
import type { RunTraceContext } from './trace-context.js';

/** Where spans go and what they carry, from the standard `OTEL_*` variables. */
export interface TracingSettings {
  /** The URL spans are posted to. */
  url: string;
  protocol: 'http/protobuf' | 'http/json';
  serviceName: string;
  /** Record prompts, outputs, tool arguments and results on the spans. */
  captureContent: boolean;
  /** Characters a span keeps of one attribute value. */
  attributeValueLengthLimit: number;
  /** Finished spans waiting for the exporter; past it new ones are dropped. */
  maxQueueSize: number;
}

/**
 * What the configuration says of tracing: on when an OTLP endpoint is set (and `OTEL_SDK_DISABLED`
 * is not), `OTEL_EXPORTER_OTLP_ENDPOINT` taking `/v1/traces` after it as the specification says.
 */
export function tracingSettings(tracing: Config['tracing']): TracingSettings | undefined {
  if (tracing.disabled) return undefined;
  const url = tracing.tracesEndpoint ?? (tracing.endpoint === undefined ? undefined : `${tracing.endpoint}/v1/traces`);
  if (url === undefined) return undefined;
  return {
    url,
    protocol: tracing.tracesProtocol,
    serviceName: tracing.serviceName,
    captureContent: tracing.captureContent,
    attributeValueLengthLimit: tracing.attributeValueLengthLimit,
    maxQueueSize: tracing.maxQueueSize,
  };
}

const propagator = new W3CTraceContextPropagator();

/** Spans the batch processor sends at once (the SDK's default), never more than its queue holds. */
const MAX_EXPORT_BATCH = 512;

/** Tracing bridges running in this process: the first sets OpenTelemetry's globals, the last to stop unsets them. */
let live = 0;

/**
 * OpenTelemetry tracing of one bridge: a tracer provider of its own, exporting in batches over
 * OTLP/HTTP. Process-wide it sets, once, what OpenTelemetry's API needs to carry a trace through
 * `await`s (AsyncLocalStorage) and into outgoing requests (W3C `traceparent`, which src/http-client
 * adds to every ORS and model request made inside a span), and unsets them when the last tracing bridge
 * of the process stops. The provider is not made the global one: two bridges in one process (tests)
 * keep their spans apart.
 */
export class OtelTracing {
  readonly tracer: Tracer;
  readonly captureContent: boolean;
  readonly #provider: TracerProvider;
  readonly #valueLimit: number;
  #stopped = false;

  constructor(settings: TracingSettings, logger: Logger, instance: string | undefined) {
    if (live++ === 0) {
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      propagation.setGlobalPropagator(propagator);
    }
    // The exporter reports what it could not send through OpenTelemetry's diagnostics: to our log.
    const otel = logger.child({ component: 'opentelemetry' });
    diag.setLogger({
      error: (message) => otel.warn(message),
      warn: (message) => otel.warn(message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    });
    const exporter =
      settings.protocol === 'http/json'
        ? new JsonExporter({ url: settings.url })
        : new ProtobufExporter({ url: settings.url });
    this.#provider = new TracerProvider({
      resource: resourceFromAttributes({
        [ATTR_SERVICE_NAME]: settings.serviceName,
        [ATTR_SERVICE_VERSION]: PACKAGE_VERSION,
        ...(instance === undefined ? {} : { [ATTR_SERVICE_INSTANCE_ID]: instance }),
      }),
      // Bounded: a receiver that does not answer costs at most the queue, each span's values cut.
      spanLimits: { attributeValueLengthLimit: settings.attributeValueLengthLimit },
      spanProcessors: [
        new BatchSpanProcessor({
          exporter,
          maxQueueSize: settings.maxQueueSize,
          maxExportBatchSize: Math.min(MAX_EXPORT_BATCH, settings.maxQueueSize),
        }),
      ],
    });
    this.tracer = this.#provider.getTracer('runbridge', PACKAGE_VERSION);
    this.captureContent = settings.captureContent;
    this.#valueLimit = settings.attributeValueLengthLimit;
  }

  /**
   * `text` as a span attribute keeps it: cut at the attribute length limit, into a string of its own.
   * The SDK cuts too, but with `substring`, which in V8 keeps the whole text alive behind the cut —
   * a 900 KB prompt per queued span; the text made for an attribute is cut here first.
   */
  cut(text: string): string {
    if (text.length <= this.#valueLimit) return text;
    return Buffer.from(text.slice(0, this.#valueLimit), 'utf8').toString('utf8');
  }

  /** The context a `traceparent` (and `tracestate`) in `carrier` names; the root context without one. */
  extract(carrier: Readonly<Record<string, string | string[] | undefined>> | undefined): Context {
    return carrier === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, carrier, defaultTextMapGetter);
  }

  /** The active span as W3C Trace Context headers, or undefined outside any span. */
  capture(): RunTraceContext | undefined {
    const active = context.active();
    if (trace.getSpanContext(active) === undefined) return undefined;
    const carrier: Record<string, string> = {};
    propagator.inject(active, carrier, { set: (target, key, value) => (target[key] = value) });
    if (carrier.traceparent === undefined) return undefined;
    return carrier.tracestate
      ? { traceparent: carrier.traceparent, tracestate: carrier.tracestate }
      : { traceparent: carrier.traceparent };
  }

  /** Sends the spans still buffered and stops; the last tracing bridge of the process lets go of the globals. */
  async shutdown(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#provider.shutdown();
    if (--live === 0) {
      context.disable();
      propagation.disable();
      diag.disable();
    }
  }
}
