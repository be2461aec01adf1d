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
  };
}

const propagator = new W3CTraceContextPropagator();

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
      spanProcessors: [new BatchSpanProcessor({ exporter })],
    });
    this.tracer = this.#provider.getTracer('runbridge', PACKAGE_VERSION);
    this.captureContent = settings.captureContent;
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
