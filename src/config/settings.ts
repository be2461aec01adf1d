import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { EPISODE_CAPS } from '../protocol/episode-caps.js';
import { MODEL_ANSWER_CAPS } from '../protocol/model-answer-caps.js';
import { apiKeys } from './api-keys.js';
import { configuredVendors, type VendorSettings } from './configured-vendors.js';
import { connectionCeiling, defaultMaxStreams } from './connection-caps.js';
import { corsOrigins } from './cors-origins.js';
import { jsonObject } from './json-object.js';
import { openFileLimit } from './open-file-limit.js';
import { type SettingValues, setting } from './setting.js';
import {
  bytes,
  flag,
  list,
  longSecret,
  oneOf,
  optional,
  optionalOneOf,
  optionalUrl,
  optionalWholeNumber,
  seconds,
  text,
  traceUrlTemplate,
  wholeNumber,
} from './setting-kinds.js';
import { type TraceparentTrust, traceparentTrust } from './traceparent-trust.js';
import { webhookSecret } from './webhook-secret.js';

/**
 * Every setting of the bridge (docs/protocol.md §6), one entry each: its environment variable, what
 * it accepts and its default (the kind), what it does. {@link Config} is inferred from this table,
 * `loadConfig` reads it, and `npm run docs` writes docs/configuration.md from it, in this order.
 */
export const settings = {
  port: setting({
    variable: 'PORT',
    ...wholeNumber(8080, { min: 0, max: 65535 }),
    description: 'port the API listens on; `0` takes a free one (`runbridge serve --port` overrides it)',
  }),
  host: setting({
    variable: 'HOST',
    ...text('127.0.0.1'),
    description:
      'address the API listens on (`runbridge serve --host` overrides it). Without API keys start-up refuses any ' +
      'but a loopback address (`127.0.0.1`, `::1`, `localhost`)',
  }),
  publicUrl: setting({
    variable: 'RUNBRIDGE_PUBLIC_URL',
    ...optionalUrl('an `http://` or `https://` URL', { protocol: /^https?$/, base: true }),
    default: "— (the request's own origin)",
    description:
      'the base URL callers reach the bridge at, behind a proxy (e.g. `https://agents.example.com`): the [A2A](a2a.md) ' +
      'agent card names its endpoint under it',
  }),
  a2aMaxPushConfigs: setting({
    variable: 'RUNBRIDGE_A2A_MAX_PUSH_CONFIGS',
    ...wholeNumber(10),
    description:
      'push notification configs one [A2A](a2a.md#push-notifications) task holds; past it `push_configs_full`, so ' +
      'one task cannot multiply its deliveries (each config gets every event of the task)',
  }),
  orsUrl: setting({
    variable: 'ORS_URL',
    ...optionalUrl('an `http://` or `https://` URL', { protocol: /^https?$/, base: true }),
    default: '— (the built-in server)',
    description:
      'a remote ORS server; unset starts the built-in one on a free loopback port (`runbridge rollout --ors-url` ' +
      'overrides it)',
  }),
  defaultEnv: setting({
    variable: 'RUNBRIDGE_DEFAULT_ENV',
    ...optional('an environment name'),
    default: '`arith` when the ORS server lists it, else its first environment',
    description:
      'environment of requests that name none (any case). Set, it is checked at start-up once the ORS server ' +
      'answers: one it does not list stops start-up; a server that does not answer yet is not judged, and the log ' +
      'says so. Unset, it is chosen from what the ORS server lists, whenever it is asked for',
  }),
  apiKeys: setting({
    variable: 'RUNBRIDGE_API_KEYS',
    ...apiKeys(),
    description:
      'bearer keys; each run belongs to the key that made it. A list of only commas and blanks, or a key under ' +
      '16 characters, stops start-up',
  }),
  logLevel: setting({
    variable: 'RUNBRIDGE_LOG_LEVEL',
    ...oneOf(['debug', 'info', 'warn', 'error'], 'info'),
    description:
      'the least severe log line written; `debug` also writes the whole error behind a line (its stack and cause). ' +
      'What is logged: [operations](operations.md#logs)',
  }),
  logFormat: setting({
    variable: 'RUNBRIDGE_LOG_FORMAT',
    ...optionalOneOf(['json', 'pretty']),
    default: '`pretty` when stderr is a terminal, else `json`',
    derive: (own) => own ?? (process.stderr.isTTY ? 'pretty' : 'json'),
    description: 'log lines on stderr: one JSON object each (pino), or readable lines (pino-pretty)',
  }),
  logBufferBytes: setting({
    variable: 'RUNBRIDGE_LOG_BUFFER_BYTES',
    ...bytes(8 * 1024 * 1024),
    description:
      'bytes of log lines waiting for stderr to take them. Lines are written without waiting, so a reader of ' +
      'stderr that stops (a blocking container log driver) never holds the server up; past this the new lines ' +
      'are dropped and counted, and a `warn` line says how many once stderr takes lines again',
  }),
  defaultModel: setting({
    variable: 'RUNBRIDGE_MODEL',
    ...optional('`provider` or `provider:name`'),
    default:
      '`openai` with `OPENAI_API_KEY` or `OPENAI_BASE_URL`, else `anthropic` with `ANTHROPIC_API_KEY`, else `vllm` with ' +
      '`VLLM_BASE_URL`, else `offline`',
    derive: (own, vendors: VendorSettings) => own ?? configuredVendors(vendors)[0] ?? 'offline',
    description: 'model of requests that name none ([models](models.md)); one this server cannot serve stops start-up',
  }),
  modelListMaxModels: setting({
    variable: 'RUNBRIDGE_MODEL_LIST_MAX_MODELS',
    ...wholeNumber(1000),
    description: "models of an OpenAI-compatible server's own list that `GET /v1/models` lists; the rest are left out",
  }),
  modelListMaxBytes: setting({
    variable: 'RUNBRIDGE_MODEL_LIST_MAX_BYTES',
    ...bytes(1024 * 1024),
    description:
      "an OpenAI-compatible server's model list read past this is cut off, and `GET /v1/models` lists its default " +
      'model instead, saying why in `unreachable`',
  }),
  keepaliveMs: setting({
    variable: 'RUNBRIDGE_KEEPALIVE_SECONDS',
    ...seconds(10),
    description: 'keep-alive comment interval on event streams',
  }),
  streamFlushMs: setting({
    variable: 'RUNBRIDGE_STREAM_FLUSH_SECONDS',
    ...seconds(0.01, { zero: true }),
    description:
      "the least time between two writes to a run's subscribers: the first event after a quiet period goes out at " +
      'once, the events that follow it within this time go out together at its end, and the terminal event at once. ' +
      '`0` writes on every turn of the event loop, at the cost of more writes',
  }),
  maxConcurrentRuns: setting({
    variable: 'RUNBRIDGE_MAX_CONCURRENT_RUNS',
    ...wholeNumber(64),
    description: 'runs playing at once on this instance; the rest queue',
  }),
  maxQueuedRuns: setting({
    variable: 'RUNBRIDGE_MAX_QUEUED_RUNS',
    ...wholeNumber(1000, { min: 0 }),
    description:
      'queue bound (one queue shared by every instance on one Redis); past it `POST /v1/runs` answers 429 `queue_full`',
  }),
  maxRunningPerKey: setting({
    variable: 'RUNBRIDGE_MAX_RUNNING_PER_KEY',
    ...optionalWholeNumber(1),
    default: 'with two or more API keys: half of `RUNBRIDGE_MAX_CONCURRENT_RUNS` (at least 1); otherwise no bound',
    derive: (own, { apiKeys, maxConcurrentRuns }: { apiKeys: string[]; maxConcurrentRuns: number }) =>
      own ?? perKeyShare(apiKeys, maxConcurrentRuns, 1),
    description:
      "runs of one key running at once, counted over every instance; the key's further runs wait in the queue even " +
      'while slots are free, so one key cannot take every slot',
  }),
  maxQueuedPerKey: setting({
    variable: 'RUNBRIDGE_MAX_QUEUED_PER_KEY',
    ...optionalWholeNumber(0),
    default: 'with two or more API keys: half of `RUNBRIDGE_MAX_QUEUED_RUNS`; otherwise no bound',
    derive: (own, { apiKeys, maxQueuedRuns }: { apiKeys: string[]; maxQueuedRuns: number }) =>
      own ?? perKeyShare(apiKeys, maxQueuedRuns, 0),
    description: 'runs of one key waiting in the queue; past it 429 `key_queue_full`, so one key cannot fill the queue',
  }),
  maxQueuedBytes: setting({
    variable: 'RUNBRIDGE_MAX_QUEUED_BYTES',
    ...bytes(64 * 1024 * 1024),
    description:
      'bytes of JSON the waiting requests hold together (inputs and secrets included); past it 429 `queue_full`',
  }),
  maxStoredBytes: setting({
    variable: 'RUNBRIDGE_MAX_STORED_BYTES',
    ...bytes(256 * 1024 * 1024),
    description:
      'bytes of JSON the stored runs hold, running ones included (requests, events and their stored details); to ' +
      "make room for a key's new run, that key's own longest-finished runs are forgotten first, before their " +
      "retention (never another key's); when none is left to forget, the new run gets 429 `store_full`",
  }),
  maxStoredBytesPerKey: setting({
    variable: 'RUNBRIDGE_MAX_STORED_BYTES_PER_KEY',
    ...optionalWholeNumber(1),
    default: 'with two or more API keys: half of `RUNBRIDGE_MAX_STORED_BYTES`; otherwise no bound',
    derive: (own, { apiKeys, maxStoredBytes }: { apiKeys: string[]; maxStoredBytes: number }) =>
      own ?? perKeyShare(apiKeys, maxStoredBytes, 1),
    description:
      "bytes of JSON one key's stored runs hold, running ones included; past it (once the key's own finished runs " +
      "are forgotten) its new runs get 429 `key_store_full`, so one key's use never forgets another key's runs",
  }),
  maxRunBytes: setting({
    variable: 'RUNBRIDGE_MAX_RUN_BYTES',
    ...bytes(32 * 1024 * 1024),
    description:
      'bytes of JSON one run may hold (its request, events and stored details); a run that would pass it fails with ' +
      '`run_too_large` (the events that close what it opened still go in)',
  }),
  orphanTtlMs: setting({
    variable: 'RUNBRIDGE_ORPHAN_TTL_SECONDS',
    ...seconds(300),
    description:
      'a queued or running run no subscriber or request touched for this long is cancelled (`orphaned`); a run ' +
      'waiting on a person (`requires_action`, `awaiting_input`) is never, and its clock starts again when the wait ends',
  }),
  retentionMs: setting({
    variable: 'RUNBRIDGE_RETENTION_SECONDS',
    ...seconds(3600),
    description: 'finished runs are forgotten after this (at the next sweep)',
  }),
  sweepMs: setting({
    variable: 'RUNBRIDGE_SWEEP_SECONDS',
    ...seconds(1),
    description:
      'how often this instance forgets the finished runs past their retention or over the stored bytes, cancels ' +
      'orphans and, on Redis, ends the runs no live instance executes (those of lost instances, and its own it no ' +
      'longer executes, found so at two sweeps in a row)',
  }),
  shutdownGraceMs: setting({
    variable: 'RUNBRIDGE_SHUTDOWN_GRACE_SECONDS',
    ...seconds(30),
    description:
      'on SIGTERM/SIGINT, running runs get this long to finish before they are cancelled; a run that waits on a ' +
      'person is cancelled at once',
  }),
  runTimeoutMs: setting({
    variable: 'RUNBRIDGE_RUN_TIMEOUT_SECONDS',
    ...seconds(3600),
    description:
      'a run longer than this is cancelled (`timeout`), time spent waiting on a person included: raise it for long chats',
  }),
  maxBodyBytes: setting({
    variable: 'RUNBRIDGE_MAX_BODY_BYTES',
    ...bytes(1024 * 1024),
    description: 'request body limit (413)',
  }),
  maxEventsPerRun: setting({
    variable: 'RUNBRIDGE_MAX_EVENTS_PER_RUN',
    ...wholeNumber(100_000),
    description: 'event log bound; a run that reaches it fails with `event_log_full`',
  }),
  subscriberBufferBytes: setting({
    variable: 'RUNBRIDGE_SUBSCRIBER_BUFFER_BYTES',
    ...bytes(1024 * 1024),
    description:
      "a subscriber (of a run's events or a batch's records) whose unsent bytes pass this is disconnected (it " +
      "resumes from its cursor); a JSON page of a run's events stops at the event that passes it",
  }),
  toolOutputEventChars: setting({
    variable: 'RUNBRIDGE_TOOL_OUTPUT_EVENT_CHARS',
    ...wholeNumber(8192),
    description: 'characters of tool output kept in `tool.completed`; the rest is cut',
  }),
  maxTurnOutputChars: setting({
    variable: 'RUNBRIDGE_MAX_TURN_OUTPUT_CHARS',
    ...wholeNumber(EPISODE_CAPS.maxTurnOutputChars),
    description:
      'characters of text, reasoning, tool arguments and token data (ids and logprobs, as the JSON the run keeps) ' +
      'one model turn may stream, together; past it the bridge stops reading the model, closes its stream and ' +
      'fails the run with `model_output_too_large`',
  }),
  maxToolCallsPerTurn: setting({
    variable: 'RUNBRIDGE_MAX_TOOL_CALLS_PER_TURN',
    ...wholeNumber(EPISODE_CAPS.maxToolCallsPerTurn),
    description:
      'tool calls of one model turn that run (or wait for approval); each call past it gets `tool.started` and a ' +
      '`tool.completed` with `error: true`, and the model is told it was not run and why',
  }),
  toolOutputStoredChars: setting({
    variable: 'RUNBRIDGE_TOOL_OUTPUT_STORED_CHARS',
    ...wholeNumber(EPISODE_CAPS.toolOutputStoredChars),
    description:
      "characters of one tool result (or tool error) the run keeps: the entry's detail, which the model's next turn " +
      'and trajectory records read, and `tool.completed`.`error_message`. The rest is cut, and a note at the cut ' +
      'says so',
  }),
  toolProgressMs: setting({
    variable: 'RUNBRIDGE_TOOL_PROGRESS_SECONDS',
    ...seconds(5),
    description: 'period of `tool.progress` while a tool call runs',
  }),
  orsPingMs: setting({
    variable: 'RUNBRIDGE_ORS_PING_SECONDS',
    ...seconds(10),
    description: 'session ping interval (client) and call ping interval (built-in server)',
  }),
  orsRetryBaseMs: setting({
    variable: 'RUNBRIDGE_ORS_RETRY_SECONDS',
    ...seconds(0.2),
    description:
      'first backoff of an ORS request retried after a network failure, a 429 or a 5xx: each of its 4 retries ' +
      "doubles it, with full jitter, and none waits more than 5 s, a server's `Retry-After` included",
  }),
  orsCallSilenceMs: setting({
    variable: 'RUNBRIDGE_ORS_CALL_SILENCE_SECONDS',
    ...seconds(30),
    description:
      'a tool-call stream that sends no byte this long (not even a `: ping`) counts as dropped: resumed by its ' +
      "`task_id`, or `ors_call_interrupted` before the id is known. Keep it above the ORS server's ping period.",
  }),
  orsMaxAnswerBytes: setting({
    variable: 'RUNBRIDGE_ORS_MAX_ANSWER_BYTES',
    ...bytes(8 * 1024 * 1024),
    description:
      "bytes the bridge reads of any one answer of the ORS server: a tool call's stream, a prompt, a tool or task " +
      'list, an error body. Past it the bridge stops reading, closes the connection and fails the request with ' +
      '`ors_response_too_large`, which is not retried (a run fails with it; its session is still deleted)',
  }),
  modelMaxEventBytes: setting({
    variable: 'RUNBRIDGE_MODEL_MAX_EVENT_BYTES',
    ...bytes(MODEL_ANSWER_CAPS.maxEventBytes),
    description:
      "bytes the bridge reads of one event of a model server's stream (its lines up to the blank line that ends " +
      'it, so also of one line), before the SDK sees them. Past it the bridge stops reading, closes the connection ' +
      'and fails the run with `model_error`',
  }),
  modelMaxAnswerBytes: setting({
    variable: 'RUNBRIDGE_MODEL_MAX_ANSWER_BYTES',
    ...bytes(MODEL_ANSWER_CAPS.maxAnswerBytes),
    description:
      "bytes the bridge reads of one answer of a model server (one turn's whole stream, whatever it carries). Past " +
      'it the bridge stops reading, closes the connection and fails the run with `model_error`',
  }),
  modelMaxErrorBytes: setting({
    variable: 'RUNBRIDGE_MODEL_MAX_ERROR_BYTES',
    ...bytes(MODEL_ANSWER_CAPS.maxErrorBytes),
    description:
      "bytes the bridge reads of a model server's error body (status 400 and up) for its message; the rest is " +
      'left unread and the message says it was cut. A run keeps at most 2,000 characters of what the server said',
  }),
  streamTokenTtlMs: setting({
    variable: 'RUNBRIDGE_STREAM_TOKEN_TTL_SECONDS',
    ...seconds(60),
    description: "how long a stream token opens its run's events",
  }),
  ui: {
    enabled: setting({
      variable: 'RUNBRIDGE_UI',
      ...flag(true),
      description: 'the [chat page](ui.md) at `GET /`; off, `/` and `/ui/*` are 404s',
    }),
  },
  corsOrigins: setting({
    variable: 'RUNBRIDGE_CORS_ORIGINS',
    ...corsOrigins(),
    description:
      'origins allowed by CORS, matched exactly (a trailing `/` is ignored); `*` allows any, and stops start-up ' +
      'without `RUNBRIDGE_API_KEYS`. Each must be written ' +
      'as a browser sends `Origin` — scheme, host, port; http(s) in lower case without the default port — or ' +
      'start-up stops and says how to write it (`localhost:3000` → `http://localhost:3000`)',
  }),
  maxConnections: setting({
    variable: 'RUNBRIDGE_MAX_CONNECTIONS',
    ...optionalWholeNumber(1),
    default: '¾ of `ulimit -n`, at least 256 kept back',
    derive: (own) => own ?? connectionCeiling(openFileLimit()),
    description:
      'connections the server holds; past it Node closes new ones at once. Above that ceiling start-up stops',
  }),
  maxConnectionsPerAddress: setting({
    variable: 'RUNBRIDGE_MAX_CONNECTIONS_PER_ADDRESS',
    ...wholeNumber(1024),
    description:
      "connections one client address holds; past it a new connection takes the place of the address's oldest one " +
      'that is not serving a request (still sending its headers, or idle), so slow connections cannot keep ' +
      '`/health` or real requests out; only when every one serves a request (open streams) is the new one closed',
  }),
  headersTimeoutMs: setting({
    variable: 'RUNBRIDGE_HEADERS_TIMEOUT_SECONDS',
    ...seconds(10),
    description:
      "how long a client may take to send a request's headers; past it the connection is answered 408 and closed",
  }),
  requestTimeoutMs: setting({
    variable: 'RUNBRIDGE_REQUEST_TIMEOUT_SECONDS',
    ...seconds(30),
    description:
      'how long a client may take to send a whole request, body included (a response, an event stream, is never cut ' +
      'by it); past it 408',
  }),
  maxStreams: setting({
    variable: 'RUNBRIDGE_MAX_STREAMS',
    ...optionalWholeNumber(1),
    default: '9/10 of the connections, at most 10 000',
    derive: (own, { maxConnections }: { maxConnections: number | undefined }) =>
      own ?? defaultMaxStreams(maxConnections ?? connectionCeiling(openFileLimit())),
    description: 'open event streams in total; past it 429 `too_many_streams`',
  }),
  maxStreamsPerKey: setting({
    variable: 'RUNBRIDGE_MAX_STREAMS_PER_KEY',
    ...wholeNumber(1000),
    description: 'open event streams of one key (without keys, of the local owner); past it 429 `too_many_streams`',
  }),
  orsMaxSessions: setting({
    variable: 'RUNBRIDGE_ORS_MAX_SESSIONS',
    ...wholeNumber(1024),
    description: 'sessions the built-in ORS server holds at once; past it its `/create` answers 429',
  }),
  orsMaxSessionBytes: setting({
    variable: 'RUNBRIDGE_ORS_MAX_SESSION_BYTES',
    ...bytes(64 * 1024 * 1024),
    description: 'request bytes one session of the built-in ORS server may receive (its tool inputs); past it 413',
  }),
  redisUrl: setting({
    variable: 'RUNBRIDGE_REDIS_URL',
    ...optionalUrl('a `redis://` or `rediss://` URL', { protocol: /^rediss?$/ }),
    default: '— (runs kept in this process)',
    description:
      'a Redis shared by any number of instances ([deployment](deployment.md)); start-up waits up to 30 s for it',
  }),
  workers: setting({
    variable: 'RUNBRIDGE_WORKERS',
    ...wholeNumber(1, { max: 1024 }),
    description:
      'processes of `runbridge serve` sharing its port (`node:cluster`; `--workers` overrides it), each with ' +
      'its own `RUNBRIDGE_MAX_CONCURRENT_RUNS`. Above 1 it needs `RUNBRIDGE_REDIS_URL`, where they keep the runs ' +
      'together; without it start-up stops, as runs kept in one process cannot be seen by the others',
  }),
  rolloutWorkers: setting({
    variable: 'RUNBRIDGE_ROLLOUT_WORKERS',
    ...optionalWholeNumber(1),
    default: 'the number of cores (`os.availableParallelism()`)',
    derive: (own) => own ?? availableParallelism(),
    description:
      'worker threads `runbridge rollout` plays its episodes in (`--workers` overrides it); `1` plays them in ' +
      "the command's own thread. Unset, one a core, started only as the batch can use them. The records are " +
      'the same whatever the number ([rollouts](rollouts.md))',
  }),
  redisPrefix: setting({
    variable: 'RUNBRIDGE_REDIS_PREFIX',
    schema: z
      .string()
      .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'use 1–64 letters, digits, ":", "_", "." or "-"')
      .default('runbridge:'),
    accepts: '1–64 letters, digits, `:`, `_`, `.` or `-`',
    default: '`runbridge:`',
    description: 'prefix of every key the bridge writes, so several bridges can share one Redis',
  }),
  redisCommandTimeoutMs: setting({
    variable: 'RUNBRIDGE_REDIS_COMMAND_TIMEOUT_SECONDS',
    ...seconds(2),
    description:
      'with Redis, how long one command may take (connecting included) before it fails and the request that needed ' +
      'it answers 503 `store_unavailable` with `Retry-After`: a Redis that stalls makes the bridge say so, not hang',
  }),
  leaseMs: setting({
    variable: 'RUNBRIDGE_LEASE_SECONDS',
    ...seconds(15),
    description:
      'an instance renews its lease three times per period; once it is gone this long, another instance ends its ' +
      'runs with `instance_lost` (at its next sweep)',
  }),
  queuePollMs: setting({
    variable: 'RUNBRIDGE_QUEUE_POLL_SECONDS',
    ...seconds(0.2),
    description: 'with Redis, how often an instance with free slots looks for queued runs that others could not start',
  }),
  secret: setting({
    variable: 'RUNBRIDGE_SECRET',
    ...longSecret(),
    default: '— (one kept in Redis, or one per process)',
    description:
      'the same on every instance: seals stream tokens and the secrets of queued runs. Unset: one is kept in Redis ' +
      '(written by the first instance), or without Redis one per process (tokens die with it)',
  }),
  webhooks: {
    secret: setting({
      variable: 'RUNBRIDGE_WEBHOOK_SECRET',
      ...webhookSecret(),
      description:
        'signs every [webhook](webhooks.md) delivery; the receivers verify with it. Make one with ' +
        '`whsec_$(openssl rand -base64 32)`',
    }),
    allowedHosts: setting({
      variable: 'RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS',
      ...list('comma-separated host names or addresses'),
      description: 'hosts webhooks may reach although they resolve to loopback or private addresses',
    }),
    timeoutMs: setting({
      variable: 'RUNBRIDGE_WEBHOOK_TIMEOUT_SECONDS',
      ...seconds(10),
      description: "one delivery attempt's limit, connecting included",
    }),
    maxAttempts: setting({
      variable: 'RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS',
      ...wholeNumber(8),
      description: 'attempts before a delivery is `failed`',
    }),
    retryMs: setting({
      variable: 'RUNBRIDGE_WEBHOOK_RETRY_SECONDS',
      ...seconds(2),
      description: 'the wait before the first retry; doubled per attempt, times a random 0.5–1, at most 10 minutes',
    }),
    concurrency: setting({
      variable: 'RUNBRIDGE_WEBHOOK_CONCURRENCY',
      ...wholeNumber(16),
      description: 'delivery attempts in flight at once per instance',
    }),
    concurrencyPerKey: setting({
      variable: 'RUNBRIDGE_WEBHOOK_CONCURRENCY_PER_KEY',
      ...optionalWholeNumber(1),
      default: 'with two or more API keys: half of `RUNBRIDGE_WEBHOOK_CONCURRENCY` (at least 1); otherwise no bound',
      derive: (own, { apiKeys, webhooks }: { apiKeys: string[]; webhooks: { concurrency: number } }) =>
        own ?? perKeyShare(apiKeys, webhooks.concurrency, 1),
      description:
        "delivery attempts of one key's runs in flight at once per instance; the keys with deliveries due take " +
        "turns at the free slots, so one key's receivers, however slow or many its deliveries, cannot hold them all",
    }),
    breakerFailures: setting({
      variable: 'RUNBRIDGE_WEBHOOK_BREAKER_FAILURES',
      ...wholeNumber(5),
      description:
        "failed attempts in a row (no answer, refused, or not a 2xx) after which a key's deliveries to that " +
        'receiver (its origin) are not sent for `RUNBRIDGE_WEBHOOK_BREAKER_SECONDS`: each attempt meanwhile fails ' +
        "at once, holding no slot, and the delivery's `last_error` says why; then one trial attempt goes, and its " +
        'success sends to it again',
    }),
    breakerMs: setting({
      variable: 'RUNBRIDGE_WEBHOOK_BREAKER_SECONDS',
      ...seconds(30),
      description:
        "how long a key's receiver that failed `RUNBRIDGE_WEBHOOK_BREAKER_FAILURES` times in a row is not sent to",
    }),
    pollMs: setting({
      variable: 'RUNBRIDGE_WEBHOOK_POLL_SECONDS',
      ...seconds(0.25),
      description:
        'how often an instance looks for deliveries that came due (retries, and those of other instances) when ' +
        'nothing woke it sooner',
    }),
  },
  metrics: {
    enabled: setting({
      variable: 'RUNBRIDGE_METRICS',
      ...flag(true),
      description:
        '`GET /metrics` in the Prometheus text format ([operations](operations.md#metrics)); off, it is a 404 and ' +
        'nothing is counted',
    }),
    token: setting({
      variable: 'RUNBRIDGE_METRICS_TOKEN',
      ...longSecret(),
      description:
        "the bearer token `GET /metrics` takes: the scraper's alone, never an API key (one that is also an API key " +
        'stops start-up). With API keys and no token, `/metrics` is refused to all; with neither, it is open on ' +
        'loopback like the API ([security](security.md))',
    }),
    models: setting({
      variable: 'RUNBRIDGE_METRICS_MODELS',
      ...list('`provider:name` models, comma-separated'),
      description:
        'models whose calls keep their name in the `gen_ai_request_model` label, besides those `GET /v1/models` ' +
        'lists and `RUNBRIDGE_MODEL`; every other model reads `other`, so no tenant chooses a label ' +
        '([operations](operations.md#metrics))',
    }),
  },
  tracing: {
    endpoint: setting({
      variable: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      ...optionalUrl('an `http://` or `https://` URL', { protocol: /^https?$/, base: true }),
      description:
        'an OTLP/HTTP receiver (an OpenTelemetry Collector, Jaeger, Tempo): turns tracing on, spans going to ' +
        '`/v1/traces` under it ([operations](operations.md#traces))',
    }),
    tracesEndpoint: setting({
      variable: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
      ...optionalUrl('an `http://` or `https://` URL', { protocol: /^https?$/ }),
      description: 'the whole URL spans are posted to, instead of the one above; turns tracing on too',
    }),
    protocol: setting({
      variable: 'OTEL_EXPORTER_OTLP_PROTOCOL',
      ...oneOf(['http/protobuf', 'http/json'], 'http/protobuf'),
      description: 'how spans are encoded (gRPC is not offered)',
    }),
    tracesProtocol: setting({
      variable: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
      ...optionalOneOf(['http/protobuf', 'http/json']),
      default: '`OTEL_EXPORTER_OTLP_PROTOCOL`',
      derive: (own, { tracing }: { tracing: { protocol: 'http/protobuf' | 'http/json' } }) => own ?? tracing.protocol,
      description: 'the same, for traces alone',
    }),
    serviceName: setting({
      variable: 'OTEL_SERVICE_NAME',
      ...text('runbridge'),
      description: "the spans' `service.name`",
    }),
    disabled: setting({
      variable: 'OTEL_SDK_DISABLED',
      ...flag(false),
      description: 'turns tracing off whatever the endpoints say',
    }),
    captureContent: setting({
      variable: 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
      ...flag(false),
      description:
        "records what was sent to the model and what it answered, and tools' arguments and results, on the spans; " +
        'off, spans carry no prompt or output',
    }),
    attributeValueLengthLimit: setting({
      variable: 'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT',
      ...wholeNumber(16_384),
      description:
        'characters a span keeps of one attribute value — a captured prompt, output, tool arguments or result, a ' +
        'name a model or an ORS server chose; the rest is cut, so spans waiting for a receiver that does not answer ' +
        'hold at most this per value',
    }),
    maxQueueSize: setting({
      variable: 'OTEL_BSP_MAX_QUEUE_SIZE',
      ...wholeNumber(2048),
      description:
        'finished spans waiting to be exported; past it new spans are dropped (the log says how many), so a receiver ' +
        'that does not answer costs at most this many spans of memory',
    }),
    traceparentTrust: setting({
      variable: 'RUNBRIDGE_TRACEPARENT_TRUST',
      ...traceparentTrust(),
      default: 'with two or more API keys: `none`; otherwise `all`',
      derive: (own, { apiKeys }: { apiKeys: string[] }): TraceparentTrust =>
        own ?? (apiKeys.length >= 2 ? { keys: [] } : 'all'),
      description:
        "whose W3C `traceparent` a request's span, and the run it starts, continues: every caller's (`all`), none " +
        "(`none`: each request starts a trace of its own, linked to the caller's span), or only the requests of the " +
        'keys listed by label (`key_…`, as the access lines name them); the others get a linked trace of their own. ' +
        "With several keys one key could otherwise write its spans into another's trace",
    }),
    traceUrl: setting({
      variable: 'RUNBRIDGE_TRACE_URL',
      ...traceUrlTemplate(),
      description:
        "a link to a run's trace, `{trace_id}` standing for its id (e.g. `https://jaeger.example/trace/{trace_id}`): " +
        "snapshots carry it as `trace_url` and the chat page links the run's heading to it",
    }),
  },
  openai: {
    apiKey: setting({
      variable: 'OPENAI_API_KEY',
      ...optional(),
      secret: true,
      description: 'enables the `openai` and `openai-responses` [models](models.md)',
    }),
    baseUrl: setting({
      variable: 'OPENAI_BASE_URL',
      ...optionalUrl('a URL'),
      description:
        'an OpenAI-compatible server (vLLM, SGLang, Ollama) instead of OpenAI; enables them without a key. ' +
        '`GET /v1/models` lists what it serves (its own `GET /v1/models`, kept 30 s)',
    }),
    models: setting({
      variable: 'OPENAI_MODELS',
      ...list('comma-separated model names'),
      description:
        'the models `GET /v1/models` lists for `openai` and `openai-responses`, instead of asking the server ' +
        'at `OPENAI_BASE_URL` (or only the default model, for OpenAI itself)',
    }),
  },
  anthropic: {
    apiKey: setting({
      variable: 'ANTHROPIC_API_KEY',
      ...optional(),
      secret: true,
      description: 'enables the `anthropic` [model](models.md)',
    }),
    baseUrl: setting({
      variable: 'ANTHROPIC_BASE_URL',
      ...optionalUrl('a URL'),
      description: "another endpoint for Anthropic's API (with `ANTHROPIC_API_KEY`)",
    }),
  },
  vllm: {
    baseUrl: setting({
      variable: 'VLLM_BASE_URL',
      ...optionalUrl('an `http://` or `https://` URL', { protocol: /^https?$/, base: true }),
      description:
        'the root of a vLLM server (e.g. `http://gpu-1:8000`; runbridge adds `/tokenize` and `/v1/…`): enables the ' +
        'token-in `vllm` [model](models.md#vllm-token-in-token-out)',
    }),
    apiKey: setting({
      variable: 'VLLM_API_KEY',
      ...optional(),
      secret: true,
      description: 'the key the vLLM server was started with (`--api-key`), if any',
    }),
    reasoningParser: setting({
      variable: 'VLLM_REASONING_PARSER',
      ...oneOf(['qwen3', 'deepseek_r1', 'none'], 'qwen3'),
      description:
        "how runbridge reads reasoning in the `vllm` model's completions (named as vLLM's own parsers); a provider " +
        'option sets it per model',
    }),
    toolParser: setting({
      variable: 'VLLM_TOOL_PARSER',
      ...oneOf(['hermes'], 'hermes'),
      description:
        "how runbridge reads tool calls in the `vllm` model's completions (named as vLLM's own parsers); a provider " +
        'option sets it per model',
    }),
    chatTemplateKwargs: setting({
      variable: 'VLLM_CHAT_TEMPLATE_KWARGS',
      ...jsonObject(),
      description:
        '`chat_template_kwargs` the `vllm` model renders every prompt with (e.g. `{"enable_thinking": false}`); a run\'s ' +
        '`sampling.extra_body.chat_template_kwargs` is laid over them',
    }),
  },
};

/** The bridge's settings, read and checked from environment variables by `loadConfig`. */
export type Config = SettingValues<typeof settings>;

/** The webhook settings (docs/webhooks.md). */
export type WebhookSettings = Config['webhooks'];

/**
 * A per-key quota of `total`: half of it (at least `minimum`) when several keys share the server, so
 * one key cannot lock the others out; none when one caller has it all (the quotas count runs on
 * every instance together, so a bound taken from one instance's would hold a single key to one
 * instance's slots).
 */
function perKeyShare(apiKeys: string[], total: number, minimum: number): number {
  return apiKeys.length >= 2 ? Math.max(minimum, Math.ceil(total / 2)) : Number.MAX_SAFE_INTEGER;
}
