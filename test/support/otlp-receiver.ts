import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

/**
 * The OTLP protos compiled by protobufjs, as `@opentelemetry/otlp-transformer` shipped them up to 0.215
 * (later releases encode by hand and carry no decoder): the receiver decodes what the real exporter
 * sends with the protocol's own schema, not with a decoder of ours.
 */
const require = createRequire(import.meta.url);
const otlp = require('@opentelemetry/otlp-transformer/build/src/generated/root.js') as {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: {
              decode(bytes: Uint8Array): unknown;
              toObject(message: unknown, options: Record<string, unknown>): unknown;
            };
          };
        };
      };
    };
  };
};
const ExportTraceServiceRequest = otlp.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** A span as the receiver got it, its ids in hex and its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's kind: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** The attributes of the resource that sent it (`service.name`, …). */
  resource: Record<string, unknown>;
  /** The spans it links to (in other traces, or none). */
  links: Array<{ traceId: string; spanId: string }>;
}

/** An OTLP/HTTP trace receiver on loopback, like a Collector's `otlphttp` receiver. */
export interface OtlpReceiver {
  /** Its base URL: `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  /** The content types of the export requests received. */
  contentTypes: string[];
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: KeyValue[];
        status?: { code?: number };
        links?: Array<{ traceId: string; spanId: string }>;
      }>;
    }>;
  }>;
}

/** Starts a receiver that takes `POST /v1/traces` in `application/x-protobuf` or `application/json`. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = contentTypeOf(req.headers);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      contentTypes.push(type);
      const body = Buffer.concat(chunks);
      spans.push(...spansOf(type === 'application/json' ? JSON.parse(body.toString('utf8')) : decodeProtobuf(body)));
      // An empty ExportTraceServiceResponse: the whole batch was taken.
      res.writeHead(200, { 'content-type': type }).end(type === 'application/json' ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    contentTypes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function contentTypeOf(headers: IncomingHttpHeaders): string {
  return (headers['content-type'] ?? '').split(';')[0]!.trim();
}

/** Protobuf to the OTLP/JSON shape (ids in hex, as OTLP/JSON writes them). */
function decodeProtobuf(body: Buffer): ExportRequest {
  const message = ExportTraceServiceRequest.decode(new Uint8Array(body));
  const plain = ExportTraceServiceRequest.toObject(message, { longs: String, bytes: Array, defaults: false }) as {
    resourceSpans?: Array<{ resource?: unknown; scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }> }>;
  };
  const hex = (bytes: unknown) => Buffer.from((bytes as number[] | undefined) ?? []).toString('hex');
  for (const resourceSpans of plain.resourceSpans ?? []) {
    for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
      for (const span of scopeSpans.spans ?? []) {
        span.traceId = hex(span.traceId);
        span.spanId = hex(span.spanId);
        span.parentSpanId = hex(span.parentSpanId);
        for (const link of (span.links as Array<Record<string, unknown>> | undefined) ?? []) {
          link.traceId = hex(link.traceId);
          link.spanId = hex(link.spanId);
        }
      }
    }
  }
  return plain as ExportRequest;
}

function spansOf(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans) =>
      (scopeSpans.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind ?? 0,
        attributes: attributesOf(span.attributes),
        status: span.status?.code ?? 0,
        resource,
        links: (span.links ?? []).map(({ traceId, spanId }) => ({ traceId, spanId })),
      })),
    );
  });
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, anyValue(value)]));
}

function anyValue(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(anyValue);
  return undefined;
}
