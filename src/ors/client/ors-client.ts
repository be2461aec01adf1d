import { z } from 'zod';
import { OrsError } from '../../errors.js';
import { readSseEvents } from '../../sse/read-sse-events.js';
import { type CreateRequestSchema, type Split, SplitSchema, ToolListSchema, type ToolSpec } from '../ors-schemas.js';
import { deleteSession } from './delete-session.js';
import { fetchHttp, nodeOrsHttp } from './ors-http.js';
import { type OrsRequest, type OrsTransport, orsFetchJson, orsFetchText, parseOrsJson } from './ors-request.js';
import { OrsSession } from './ors-session.js';
import { Redactor } from './redactor.js';

/** Settings of an {@link OrsClient}; every duration is in milliseconds. */
export interface OrsClientOptions {
  /** The ORS server, e.g. `http://127.0.0.1:8080`; a trailing slash is ignored. */
  baseUrl: string;
  /** Period of each session's ping loop; default 10 000. */
  pingIntervalMs?: number;
  /** A call stream that delivers no byte (not even a `: ping` comment) this long is dead; default 30 000. */
  callSilenceTimeoutMs?: number;
  /** Bound of each attempt of a non-streaming request, body included; default 30 000. */
  requestTimeoutMs?: number;
  /** Attempts after the first for retryable failures; default 4. */
  retries?: number;
  /** First backoff ceiling, doubled per retry, with full jitter; default 200. */
  retryBaseDelayMs?: number;
  /** Cap of any backoff delay, `Retry-After` included; default 5 000. */
  retryMaxDelayMs?: number;
  /**
   * Bytes read of any one answer — a call's stream, a prompt, a list, an error body — before the
   * request fails with `ors_response_too_large` and is not retried (docs/protocol.md §5.6); default 8 MiB.
   */
  maxAnswerBytes?: number;
  /** A fetch to send every request with; default: `node:http` with keep-alive agents of the client's own. */
  fetch?: typeof fetch;
  /** Sent as `Authorization: Bearer <token>` with every request, for a server that requires one. */
  bearerToken?: string;
}

/** Which task an episode runs: one of a split, by index, or a full task object. */
export type OrsTaskRef = { split: string; index: number } | { spec: Record<string, unknown> };

const OptionsSchema = z.object({
  baseUrl: z.url({ protocol: /^https?$/ }),
  pingIntervalMs: z.number().positive().default(10_000),
  callSilenceTimeoutMs: z.number().positive().default(30_000),
  requestTimeoutMs: z.number().positive().default(30_000),
  retries: z.number().int().min(0).default(4),
  retryBaseDelayMs: z.number().min(0).default(200),
  retryMaxDelayMs: z.number().min(0).default(5_000),
  maxAnswerBytes: z
    .number()
    .int()
    .positive()
    .default(8 * 1024 * 1024),
});

const HealthSchema = z.object({ status: z.string() });
const EnvironmentListSchema = z.array(z.string());
const SplitListSchema = z.array(SplitSchema);
const TaskListSchema = z.object({ tasks: z.array(z.unknown()) });
const NumTasksSchema = z.object({ num_tasks: z.number().int().min(0) });
const TaskSchema = z.object({ task: z.unknown() });
const CreateSessionJsonSchema = z.object({ sid: z.string().min(1) });
const TaskSchemaAnswerSchema = z.object({ task_schema: z.record(z.string(), z.unknown()).nullable() });

/**
 * A client of one ORS server: discovery (environments, tools, splits, tasks) and episodes
 * ({@link OrsClient.openSession}). Non-streaming requests are retried with backoff on network
 * failures, 429 and 5xx where that is safe; failures are `OrsError`s (see `src/errors.ts`).
 */
export class OrsClient {
  readonly #transport: OrsTransport;
  readonly #pingIntervalMs: number;
  readonly #callSilenceTimeoutMs: number;

  /** Validates `options`; a bad value (a programming or configuration mistake) throws a `TypeError` naming it. */
  constructor(options: OrsClientOptions) {
    const parsed = OptionsSchema.safeParse(options);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
      throw new TypeError(`Invalid ORS client options: ${problems.join('; ')}.`);
    }
    const settings = parsed.data;
    this.#transport = {
      baseUrl: settings.baseUrl.replace(/\/+$/, ''),
      send: options.fetch === undefined ? nodeOrsHttp() : fetchHttp(options.fetch),
      headers: options.bearerToken === undefined ? {} : { authorization: `Bearer ${options.bearerToken}` },
      requestTimeoutMs: settings.requestTimeoutMs,
      maxAnswerBytes: settings.maxAnswerBytes,
      retry: {
        retries: settings.retries,
        baseDelayMs: settings.retryBaseDelayMs,
        maxDelayMs: settings.retryMaxDelayMs,
      },
    };
    this.#pingIntervalMs = settings.pingIntervalMs;
    this.#callSilenceTimeoutMs = settings.callSilenceTimeoutMs;
  }

  /** `GET /health`: the server's `{status}` (`"ok"` when healthy). */
  health(signal?: AbortSignal): Promise<{ status: string }> {
    return this.#get('/health', 'server', HealthSchema, signal);
  }

  /** `GET /list_environments`: the names the server serves. */
  listEnvironments(signal?: AbortSignal): Promise<string[]> {
    return this.#get('/list_environments', 'server', EnvironmentListSchema, signal);
  }

  /** `GET /{env}/tools`: the environment's shared tools; `unknown_env` on 404. */
  async tools(env: string, signal?: AbortSignal): Promise<ToolSpec[]> {
    return (await this.#get(`/${encodeURIComponent(env)}/tools`, 'env', ToolListSchema, signal)).tools;
  }

  /**
   * `GET /{env}/task_schema`, runbridge's extension (docs/ors.md): the JSON Schema of the task specs
   * `/create` accepts, or undefined when the server does not say (it answers 404: a server without
   * the extension). Ask only about an environment the server lists, or its 404 reads as "not said".
   */
  async taskSchema(env: string, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    try {
      const answer = await this.#get(
        `/${encodeURIComponent(env)}/task_schema`,
        'server',
        TaskSchemaAnswerSchema,
        signal,
      );
      return answer.task_schema ?? undefined;
    } catch (error) {
      if (error instanceof OrsError && (error.details as { status?: unknown } | undefined)?.status === 404) {
        return undefined;
      }
      throw error;
    }
  }

  /** `GET /{env}/splits`; `unknown_env` on 404. */
  splits(env: string, signal?: AbortSignal): Promise<Split[]> {
    return this.#get(`/${encodeURIComponent(env)}/splits`, 'env', SplitListSchema, signal);
  }

  /** `POST /{env}/tasks`: every task of `split`; `invalid_task` for an unknown split, `unknown_env` on 404. */
  async tasks(env: string, split: string, signal?: AbortSignal): Promise<unknown[]> {
    return (await this.#post(`/${encodeURIComponent(env)}/tasks`, { split }, TaskListSchema, signal)).tasks;
  }

  /** `POST /{env}/num_tasks`: how many tasks `split` holds. */
  async numTasks(env: string, split: string, signal?: AbortSignal): Promise<number> {
    return (await this.#post(`/${encodeURIComponent(env)}/num_tasks`, { split }, NumTasksSchema, signal)).num_tasks;
  }

  /** `POST /{env}/task`: task `index` of `split`; `invalid_task` when out of range. */
  async task(env: string, split: string, index: number, signal?: AbortSignal): Promise<unknown> {
    return (await this.#post(`/${encodeURIComponent(env)}/task`, { split, index }, TaskSchema, signal)).task;
  }

  /**
   * `POST /{env}/task_range`: tasks `start` (inclusive) to `stop` (exclusive) of `split`, Python slice
   * rules (negative indices count from the end; absent bounds mean the whole split).
   */
  async taskRange(
    env: string,
    split: string,
    range: { start?: number; stop?: number },
    signal?: AbortSignal,
  ): Promise<unknown[]> {
    const body = {
      split,
      ...(range.start === undefined ? {} : { start: range.start }),
      ...(range.stop === undefined ? {} : { stop: range.stop }),
    };
    return (await this.#post(`/${encodeURIComponent(env)}/task_range`, body, TaskListSchema, signal)).tasks;
  }

  /**
   * Opens an episode: `/create_session` (SSE `task_id` or JSON `{sid}` answer), then `/create` with
   * `env_name`, the task and `secrets`. When `/create` fails or `signal` aborts during it, the session
   * is deleted before the error (or the abort reason) is thrown. The returned session pings until it
   * is closed. No value of `secrets` appears in an error, of `/create` or of any later request of the
   * session (docs/security.md).
   */
  async openSession(options: {
    env: string;
    task: OrsTaskRef;
    secrets?: Record<string, unknown>;
    signal?: AbortSignal;
  }): Promise<OrsSession> {
    const { env, task, secrets, signal } = options;
    const redactor = new Redactor(secrets);
    const sid = await this.#createSession(signal);
    const body: z.input<typeof CreateRequestSchema> = {
      env_name: env,
      ...('spec' in task ? { task_spec: task.spec } : { split: task.split, index: task.index }),
      ...(secrets === undefined ? {} : { secrets }),
    };
    try {
      await orsFetchText(this.#transport, {
        method: 'POST',
        path: '/create',
        // A 400 means the task is wrong; what to check depends on how it was given.
        kind: 'spec' in task ? 'spec' : 'task',
        sid,
        body,
        // A retried /create the server already acted on would fail as a duplicate session.
        idempotent: false,
        signals: [signal],
        redact: redactor,
      });
    } catch (error) {
      await deleteSession(this.#transport, sid);
      throw redactor.error(error);
    }
    return new OrsSession(sid, env, {
      transport: this.#transport,
      pingIntervalMs: this.#pingIntervalMs,
      callSilenceTimeoutMs: this.#callSilenceTimeoutMs,
      redactor,
    });
  }

  async #createSession(signal: AbortSignal | undefined): Promise<string> {
    const request: OrsRequest = {
      method: 'POST',
      path: '/create_session',
      kind: 'server',
      // Only an id is minted; a retry at worst leaves an empty id behind.
      idempotent: true,
      signals: [signal],
    };
    const { text, headers } = await orsFetchText(this.#transport, request);
    const endpoint = 'POST /create_session';
    if (!headers.get('content-type')?.includes('text/event-stream') && !looksLikeSse(text)) {
      return parseOrsJson(endpoint, text, CreateSessionJsonSchema).sid;
    }
    // The reference server answers `event: task_id` / `data: <sid>`, then `event: end`.
    const body = (async function* () {
      yield new TextEncoder().encode(text);
    })();
    for await (const event of readSseEvents(body)) {
      if (event.event === 'task_id' && event.data !== '') return event.data;
      if (event.event === 'error') {
        throw new OrsError(`${endpoint}: the ORS server could not create a session: ${event.data}`, {
          code: 'ors_unavailable',
          details: { endpoint },
        });
      }
    }
    throw new OrsError(`${endpoint}: the ORS server's SSE answer held no task_id event with the session id.`, {
      code: 'ors_bad_response',
      details: { endpoint },
    });
  }

  #get<S extends z.ZodType>(
    path: string,
    kind: OrsRequest['kind'],
    schema: S,
    signal: AbortSignal | undefined,
  ): Promise<z.output<S>> {
    const request: OrsRequest = { method: 'GET', path, kind, idempotent: true, signals: [signal] };
    return orsFetchJson(this.#transport, request, schema);
  }

  #post<S extends z.ZodType>(
    path: string,
    body: Record<string, unknown>,
    schema: S,
    signal: AbortSignal | undefined,
  ): Promise<z.output<S>> {
    // Task lookups only read, so they are as safe to repeat as a GET.
    const request: OrsRequest = {
      method: 'POST',
      path,
      kind: 'task',
      body,
      idempotent: true,
      signals: [signal],
    };
    return orsFetchJson(this.#transport, request, schema);
  }
}

/** True when `text` starts like an SSE stream (for servers that send SSE without its content type). */
function looksLikeSse(text: string): boolean {
  return /^(?:\uFEFF)?(?:event|data|id|retry)?:/.test(text.trimStart());
}
