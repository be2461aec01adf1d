import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { createLogger } from '../../src/telemetry/create-logger.js';
import { tracingSettings } from '../../src/telemetry/otel-tracing.js';

/** What the variables of docs/operations.md turn on, and how the log reads (docs/configuration.md). */

const tracingOf = (env: Record<string, string>) => tracingSettings(loadConfig(env).tracing);

describe('tracing', () => {
  it('is off unless an OTLP endpoint is set', () => {
    expect(tracingOf({})).toBeUndefined();
    expect(tracingOf({ OTEL_SERVICE_NAME: 'runbridge-eu' })).toBeUndefined();
  });

  it('posts to /v1/traces under OTEL_EXPORTER_OTLP_ENDPOINT, as protobuf unless told otherwise', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual({
      url: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      serviceName: 'runbridge',
      captureContent: false,
      attributeValueLengthLimit: 16_384,
      maxQueueSize: 2048,
    });
  });

  it('takes the traces endpoint and protocol over the general ones, and the span limits it is given', () => {
    const settings = tracingOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://tempo.example/otlp/v1/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'runbridge-eu',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
      OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '4096',
      OTEL_BSP_MAX_QUEUE_SIZE: '256',
    });
    expect(settings).toEqual({
      url: 'https://tempo.example/otlp/v1/traces',
      protocol: 'http/json',
      serviceName: 'runbridge-eu',
      captureContent: true,
      attributeValueLengthLimit: 4096,
      maxQueueSize: 256,
    });
  });

  it('is off with OTEL_SDK_DISABLED whatever the endpoints say', () => {
    expect(tracingOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(
      undefined,
    );
  });

  it("continues callers' traceparent with fewer than two keys, none with more, and the keys it is told", () => {
    const trustOf = (env: Record<string, string>) => loadConfig(env).tracing.traceparentTrust;
    const [a, b] = ['tenant-a-0123456789abcdef', 'tenant-b-0123456789abcdef'];
    expect(trustOf({})).toBe('all');
    expect(trustOf({ RUNBRIDGE_API_KEYS: a })).toBe('all');
    expect(trustOf({ RUNBRIDGE_API_KEYS: `${a},${b}` })).toEqual({ keys: [] });
    expect(trustOf({ RUNBRIDGE_API_KEYS: `${a},${b}`, RUNBRIDGE_TRACEPARENT_TRUST: 'ALL' })).toBe('all');
    expect(trustOf({ RUNBRIDGE_TRACEPARENT_TRUST: 'none' })).toEqual({ keys: [] });
    expect(trustOf({ RUNBRIDGE_TRACEPARENT_TRUST: 'key_0123456789abcdef, key_fedcba9876543210' })).toEqual({
      keys: ['key_0123456789abcdef', 'key_fedcba9876543210'],
    });
    // A key where its label belongs is refused, and not shown.
    expect(() => loadConfig({ RUNBRIDGE_TRACEPARENT_TRUST: a })).toThrow(
      /RUNBRIDGE_TRACEPARENT_TRUST.*not a key label/,
    );
    expect(() => loadConfig({ RUNBRIDGE_TRACEPARENT_TRUST: a })).not.toThrow(a);
  });

  it('refuses gRPC, which it does not offer', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/OTEL_EXPORTER_OTLP_PROTOCOL/);
  });
});

describe('the log', () => {
  it('is at info unless told, JSON unless stderr is a terminal', () => {
    const config = loadConfig({});
    expect(config.logLevel).toBe('info');
    expect(config.logFormat).toBe(process.stderr.isTTY ? 'pretty' : 'json');
    expect(loadConfig({ RUNBRIDGE_LOG_FORMAT: 'pretty', RUNBRIDGE_LOG_LEVEL: 'warn' })).toMatchObject({
      logFormat: 'pretty',
      logLevel: 'warn',
    });
    expect(() => loadConfig({ RUNBRIDGE_LOG_FORMAT: 'xml' })).toThrow(/RUNBRIDGE_LOG_FORMAT/);
  });

  it('reads, pretty, as one line each: the level, the message with its error at the end, and the fields', () => {
    const chunks: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    const log = createLogger({ level: 'info', format: 'pretty', destination });
    log.debug('not written at info');
    log.warn({ run_id: 'run_abc', err: new Error('connect ECONNREFUSED 127.0.0.1:8233') }, 'ORS session setup failed');
    const lines = chunks.join('').split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: ORS session setup failed: connect ECONNREFUSED/);
    expect(lines[0]).toContain('{"run_id":"run_abc"}');
    expect(lines[0]).not.toContain('    at ');
    expect(() => JSON.parse(lines[0]!)).toThrow();
  });

  it.each(['info', 'debug'] as const)(
    'reads, pretty at %s, one line per call whatever control characters a name from outside holds',
    (level) => {
      const chunks: string[] = [];
      const destination = new Writable({
        write(chunk: Buffer, _encoding, done) {
          chunks.push(chunk.toString());
          done();
        },
      });
      const log = createLogger({ level, format: 'pretty', destination });
      // A tool name an ORS server chose, ending in a line of its own that looks like the JSON log.
      const forged = 'calc\n{"level":"error","msg":"admin key rotated"}\r\u001b[2K\u0000\u2028';
      log.warn({ tool: forged, err: new Error(`bad tool ${forged}`) }, `tool ${forged} failed`);
      log.info({ [forged]: 1 }, 'field named from outside');
      const text = chunks.join('');
      // At debug an error's stack follows its line, indented: only the two lines start at the margin.
      const lines = text.split('\n').filter((line) => /^\S/.test(line));
      expect(lines).toHaveLength(2);
      for (const raw of ['\r', '\u001b', '\u0000', '\u2028']) expect(text).not.toContain(raw);
      expect(text).not.toMatch(/\n\s*\{"level"/);
      expect(lines[0]).toContain(
        String.raw`tool calc\n{"level":"error","msg":"admin key rotated"}\r\u001b[2K\u0000\u2028 failed`,
      );
      expect(lines.some((line) => line.startsWith('{'))).toBe(false);
    },
  );
});
