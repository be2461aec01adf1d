import { z } from 'zod';
import type { WebhookSettings } from './webhooks/webhook-dispatcher.js';

/**
 * Environment variables → typed, validated configuration. Every knob of docs/protocol.md §6 is here with its
 * default; a bad value stops start-up with a message naming the variable and what it accepts.
 */

/** Node's timers hold at most 2^31 - 1 ms. */
const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);
/**
 * A duration in seconds, at least 1 ms (it is rounded to whole milliseconds, and 0 would spin a timer)
 * and at most Node's longest timer, about 24.8 days (a longer one fires after 1 ms instead).
 */
const seconds = (fallback: number) =>
  z.coerce
    .number()
    .min(0.001, 'must be at least 0.001 (one millisecond)')
    .max(MAX_TIMER_SECONDS, `must be at most ${MAX_TIMER_SECONDS} (Node's longest timer)`)
    .default(fallback);
const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const ON = ['1', 'true', 'on', 'yes'] as const;
const OFF = ['0', 'false', 'off', 'no'] as const;
/** A switch: `1`/`true`/`on`/`yes` or `0`/`false`/`off`/`no`, in any case; unset or empty is `fallback`. */
const flag = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((value) => value?.trim().toLowerCase() || undefined)
    .pipe(z.enum([...ON, ...OFF], 'must be 1 or 0 (or true/false, on/off)').optional())
    .transform((value) => (value === undefined ? fallback : (ON as readonly string[]).includes(value)));
const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()));

const optionalCount = optionalText.pipe(z.coerce.number<string>().int().positive().optional());

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  ORS_URL: optionalText.pipe(z.url({ protocol: /^https?$/ }).optional()),
  RUNBRIDGE_DEFAULT_ENV: z.string().min(1).default('arith'),
  RUNBRIDGE_API_KEYS: optionalText,
  RUNBRIDGE_MODEL: optionalText,
  RUNBRIDGE_KEEPALIVE_SECONDS: seconds(10),
  RUNBRIDGE_MAX_CONCURRENT_RUNS: count(64),
  RUNBRIDGE_MAX_QUEUED_RUNS: z.coerce.number().int().min(0).default(1000),
  RUNBRIDGE_ORPHAN_TTL_SECONDS: seconds(300),
  RUNBRIDGE_RETENTION_SECONDS: seconds(3600),
  RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: seconds(30),
  RUNBRIDGE_RUN_TIMEOUT_SECONDS: seconds(3600),
  RUNBRIDGE_MAX_BODY_BYTES: count(1024 * 1024),
  RUNBRIDGE_MAX_EVENTS_PER_RUN: count(100_000),
  RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES: count(1024 * 1024),
  RUNBRIDGE_TOOL_OUTPUT_EVENT_CHARS: count(8192),
  RUNBRIDGE_TOOL_PROGRESS_SECONDS: seconds(5),
  RUNBRIDGE_CORS_ORIGINS: optionalText,
  RUNBRIDGE_ORS_PING_SECONDS: seconds(10),
  RUNBRIDGE_ORS_CALL_SILENCE_SECONDS: seconds(30),
  RUNBRIDGE_STREAM_TOKEN_TTL_SECONDS: seconds(60),
  RUNBRIDGE_UI: flag(true),
  // Quotas and byte budgets of the run store (docs/protocol.md §6, `docs/configuration.md`).
  RUNBRIDGE_MAX_RUNNING_PER_KEY: z.coerce.number().int().positive().optional(),
  RUNBRIDGE_MAX_QUEUED_PER_KEY: z.coerce.number().int().min(0).optional(),
  RUNBRIDGE_MAX_QUEUED_BYTES: count(64 * 1024 * 1024),
  RUNBRIDGE_MAX_STORED_BYTES: count(256 * 1024 * 1024),
  // Instances sharing one Redis (docs/protocol.md §8, `docs/deployment.md`).
  RUNBRIDGE_REDIS_URL: optionalText.pipe(z.url({ protocol: /^rediss?$/ }).optional()),
  RUNBRIDGE_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'use 1–64 letters, digits, ":", "_", "." or "-"')
    .default('runbridge:'),
  RUNBRIDGE_LEASE_SECONDS: seconds(15),
  RUNBRIDGE_SECRET: optionalText.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  // Webhooks (docs/protocol.md §9, `docs/webhooks.md`).
  RUNBRIDGE_WEBHOOK_SECRET: optionalText.pipe(
    z
      .string()
      .refine(
        isWebhookSecret,
        'must be "whsec_" followed by at least 24 bytes in base64, e.g. whsec_$(openssl rand -base64 32)',
      )
      .optional(),
  ),
  RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: optionalText,
  RUNBRIDGE_WEBHOOK_TIMEOUT_SECONDS: seconds(10),
  RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: count(8),
  RUNBRIDGE_WEBHOOK_RETRY_SECONDS: seconds(2),
  RUNBRIDGE_WEBHOOK_CONCURRENCY: count(16),
  // Caps against hostile load (docs/security.md, "Caps"); unset connection and stream caps are
  // derived from the open-file limit at start-up.
  RUNBRIDGE_MAX_CONNECTIONS: optionalCount,
  RUNBRIDGE_MAX_STREAMS: optionalCount,
  RUNBRIDGE_MAX_STREAMS_PER_KEY: count(1000),
  RUNBRIDGE_ORS_MAX_SESSIONS: count(1024),
  RUNBRIDGE_ORS_MAX_SESSION_BYTES: count(64 * 1024 * 1024),
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: optionalText.pipe(z.url().optional()),
  ANTHROPIC_API_KEY: optionalText,
  ANTHROPIC_BASE_URL: optionalText.pipe(z.url().optional()),
});

/** The bridge's settings, validated from environment variables by {@link loadConfig} (docs/configuration.md lists them). */
export interface Config {
  port: number;
  host: string;
  /** A remote ORS server; undefined starts the built-in one on a loopback port. */
  orsUrl: string | undefined;
  defaultEnv: string;
  apiKeys: string[];
  /** `provider:name` used when a request names no model. */
  defaultModel: string;
  keepaliveMs: number;
  maxConcurrentRuns: number;
  maxQueuedRuns: number;
  orphanTtlMs: number;
  retentionMs: number;
  shutdownGraceMs: number;
  runTimeoutMs: number;
  maxBodyBytes: number;
  maxEventsPerRun: number;
  subscriberBufferBytes: number;
  toolOutputEventChars: number;
  /** Period of `tool.progress` events while a tool call runs (docs/protocol.md §10). */
  toolProgressMs: number;
  corsOrigins: string[];
  orsPingMs: number;
  /**
   * A tool call stream that sends no byte for this long (not even the server's `: ping`, every 10 s
   * on the reference server) is dead and is resumed by its `task_id`; keep it above the server's ping period.
   */
  orsCallSilenceMs: number;
  /** How long a stream token (`POST /v1/runs/:id/stream-token`) opens its run's events stream. */
  streamTokenTtlMs: number;
  /** The chat page at `GET /` (docs/ui.md). */
  ui: {
    /** `RUNBRIDGE_UI`: serve the page and its assets; off, `GET /` is a 404 like any unknown route. */
    enabled: boolean;
  };
  /**
   * Runs of one API key running at once, on every instance together. Default: half of
   * `maxConcurrentRuns` (at least 1) when two or more keys are configured, so no key can take every
   * slot; no bound otherwise.
   */
  maxRunningPerKey: number;
  /** Runs of one API key waiting in the queue. Default: half of `maxQueuedRuns` with two or more keys, no bound otherwise. */
  maxQueuedPerKey: number;
  /** Bytes of JSON the queued requests may hold together (inputs and secrets included). */
  maxQueuedBytes: number;
  /** Bytes of JSON stored runs may hold (requests, events, details); past it the oldest finished runs are forgotten. */
  maxStoredBytes: number;
  /** A Redis shared by every instance (`redis://` or `rediss://`); undefined keeps everything in this process. */
  redisUrl: string | undefined;
  /** Prefix of every key the bridge writes to Redis, so several bridges can share one. */
  redisPrefix: string;
  /** How long an instance's runs outlive its last lease renewal before another instance ends them. */
  leaseMs: number;
  /**
   * The secret every instance shares (stream tokens, sealed secrets of queued runs); undefined: a
   * random one kept in Redis, or with no Redis, per process.
   */
  secret: string | undefined;
  /** Signed webhook deliveries (docs/webhooks.md). */
  webhooks: WebhookSettings;
  /** Connections the server holds at most; undefined: derived from the open-file limit. */
  maxConnections: number | undefined;
  /** Open event streams in total; undefined: derived from the connection limit. */
  maxStreams: number | undefined;
  /** Open event streams of one key. */
  maxStreamsPerKey: number;
  /** Sessions the built-in ORS server holds at once; past it `/create` answers 429. */
  orsMaxSessions: number;
  /** Request bytes one session of the built-in ORS server may receive (its tool inputs); past it 413. */
  orsMaxSessionBytes: number;
  openai: { apiKey: string | undefined; baseUrl: string | undefined };
  anthropic: { apiKey: string | undefined; baseUrl: string | undefined };
}

/** Thrown when the environment holds a value we cannot use; the message lists every problem. */
export class ConfigError extends Error {
  /** Each problem of the configuration, one sentence each, naming the variable. */
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = new.target.name;
  }
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/**
 * The per-key quotas, defaulting to half of this instance's bounds when several keys share the
 * server (one key then cannot lock the others out), and to none when one caller has it all (the
 * quotas count runs on every instance together, so a bound taken from one instance's would hold a
 * single key to one instance's slots).
 */
function storeQuotas(
  e: z.infer<typeof EnvSchema>,
  keys: number,
): Pick<Config, 'maxRunningPerKey' | 'maxQueuedPerKey' | 'maxQueuedBytes' | 'maxStoredBytes'> {
  const share = (total: number, minimum: number) =>
    keys >= 2 ? Math.max(minimum, Math.ceil(total / 2)) : Number.MAX_SAFE_INTEGER;
  return {
    maxRunningPerKey: e.RUNBRIDGE_MAX_RUNNING_PER_KEY ?? share(e.RUNBRIDGE_MAX_CONCURRENT_RUNS, 1),
    maxQueuedPerKey: e.RUNBRIDGE_MAX_QUEUED_PER_KEY ?? share(e.RUNBRIDGE_MAX_QUEUED_RUNS, 0),
    maxQueuedBytes: e.RUNBRIDGE_MAX_QUEUED_BYTES,
    maxStoredBytes: e.RUNBRIDGE_MAX_STORED_BYTES,
  };
}

/** Reads and validates the configuration from `env` (default: `process.env`). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (issue) => `${issue.path.join('.')}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])])})`,
      ),
    );
  }
  const e = parsed.data;
  const corsOrigins = list(e.RUNBRIDGE_CORS_ORIGINS);
  const badOrigins = corsOrigins.filter((origin) => !isOrigin(origin));
  if (badOrigins.length > 0) {
    throw new ConfigError(
      badOrigins.map(
        (origin) =>
          `RUNBRIDGE_CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin a browser sends, so it could never match; ` +
          `write scheme, host and port, e.g. ${JSON.stringify(exampleOrigin(origin))} (or * for any origin)`,
      ),
    );
  }
  const ms = (value: number) => Math.round(value * 1000);
  return {
    port: e.PORT,
    host: e.HOST,
    orsUrl: e.ORS_URL?.replace(/\/+$/, ''),
    defaultEnv: e.RUNBRIDGE_DEFAULT_ENV,
    apiKeys: list(e.RUNBRIDGE_API_KEYS),
    defaultModel: e.RUNBRIDGE_MODEL ?? (e.OPENAI_API_KEY ? 'openai' : e.ANTHROPIC_API_KEY ? 'anthropic' : 'offline'),
    keepaliveMs: ms(e.RUNBRIDGE_KEEPALIVE_SECONDS),
    maxConcurrentRuns: e.RUNBRIDGE_MAX_CONCURRENT_RUNS,
    maxQueuedRuns: e.RUNBRIDGE_MAX_QUEUED_RUNS,
    orphanTtlMs: ms(e.RUNBRIDGE_ORPHAN_TTL_SECONDS),
    retentionMs: ms(e.RUNBRIDGE_RETENTION_SECONDS),
    shutdownGraceMs: ms(e.RUNBRIDGE_SHUTDOWN_GRACE_SECONDS),
    runTimeoutMs: ms(e.RUNBRIDGE_RUN_TIMEOUT_SECONDS),
    maxBodyBytes: e.RUNBRIDGE_MAX_BODY_BYTES,
    maxEventsPerRun: e.RUNBRIDGE_MAX_EVENTS_PER_RUN,
    subscriberBufferBytes: e.RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES,
    toolOutputEventChars: e.RUNBRIDGE_TOOL_OUTPUT_EVENT_CHARS,
    toolProgressMs: ms(e.RUNBRIDGE_TOOL_PROGRESS_SECONDS),
    corsOrigins,
    orsPingMs: ms(e.RUNBRIDGE_ORS_PING_SECONDS),
    orsCallSilenceMs: ms(e.RUNBRIDGE_ORS_CALL_SILENCE_SECONDS),
    streamTokenTtlMs: ms(e.RUNBRIDGE_STREAM_TOKEN_TTL_SECONDS),
    ui: { enabled: e.RUNBRIDGE_UI },
    ...storeQuotas(e, list(e.RUNBRIDGE_API_KEYS).length),
    redisUrl: e.RUNBRIDGE_REDIS_URL,
    redisPrefix: e.RUNBRIDGE_REDIS_PREFIX,
    leaseMs: ms(e.RUNBRIDGE_LEASE_SECONDS),
    secret: e.RUNBRIDGE_SECRET,
    webhooks: {
      secret: e.RUNBRIDGE_WEBHOOK_SECRET,
      allowedHosts: list(e.RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS),
      timeoutMs: ms(e.RUNBRIDGE_WEBHOOK_TIMEOUT_SECONDS),
      maxAttempts: e.RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS,
      retryMs: ms(e.RUNBRIDGE_WEBHOOK_RETRY_SECONDS),
      concurrency: e.RUNBRIDGE_WEBHOOK_CONCURRENCY,
    },
    maxConnections: e.RUNBRIDGE_MAX_CONNECTIONS,
    maxStreams: e.RUNBRIDGE_MAX_STREAMS,
    maxStreamsPerKey: e.RUNBRIDGE_MAX_STREAMS_PER_KEY,
    orsMaxSessions: e.RUNBRIDGE_ORS_MAX_SESSIONS,
    orsMaxSessionBytes: e.RUNBRIDGE_ORS_MAX_SESSION_BYTES,
    openai: { apiKey: e.OPENAI_API_KEY, baseUrl: e.OPENAI_BASE_URL },
    anthropic: { apiKey: e.ANTHROPIC_API_KEY, baseUrl: e.ANTHROPIC_BASE_URL },
  };
}

/** True for a Standard Webhooks secret: `whsec_` and base64 of 24 bytes or more. */
function isWebhookSecret(text: string): boolean {
  const encoded = text.startsWith('whsec_') ? text.slice('whsec_'.length) : '';
  return /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) && Buffer.from(encoded, 'base64').length >= 24;
}

/**
 * True for `*` and for what a browser sends as `Origin`: `scheme://host[:port]`, nothing after it (a
 * trailing `/` is forgiven, as the CORS middleware ignores it). An http(s) origin must be written as
 * browsers send it: lower case, without its scheme's default port.
 */
function isOrigin(text: string): boolean {
  if (text === '*') return true;
  const bare = text.replace(/\/+$/, '');
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+$/i.test(bare)) return false;
  if (!/^https?:/i.test(bare)) return true;
  try {
    return new URL(bare).origin === bare;
  } catch {
    return false;
  }
}

/** The origin `text` probably means: its own when it is a URL, with `http://` in front when it has no scheme. */
function exampleOrigin(text: string): string {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  try {
    const url = new URL(hasScheme ? text : `http://${text}`);
    if (/^https?:$/.test(url.protocol)) return url.origin;
  } catch {
    // Not even that: fall back to an example.
  }
  return 'http://localhost:3000';
}
