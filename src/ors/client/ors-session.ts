import type { z } from 'zod';
import { OrsError } from '../../errors.js';
import { type Block, BlocksSchema, ToolListSchema, type ToolSpec } from '../ors-schemas.js';
import type { AbortParents } from './abort-scope.js';
import { callTool, type OrsCallOutcome } from './call-tool.js';
import { deleteSession } from './delete-session.js';
import { type OrsRequest, type OrsTransport, orsFetchJson, orsFetchText } from './ors-request.js';
import { Redactor } from './redactor.js';

export type { OrsCallOutcome } from './call-tool.js';

/** How an {@link OrsSession} keeps itself alive; set by the client that opens it. */
export interface OrsSessionSettings {
  transport: OrsTransport;
  pingIntervalMs: number;
  callSilenceTimeoutMs: number;
  /** Removes the episode's `secrets` from every error the server's text reaches; default: nothing to remove. */
  redactor?: Redactor;
}

/** Pings that fail this many times in a row (each after its own retries) mean the session is lost. */
const PING_FAILURES_BEFORE_LOST = 3;

/**
 * One open ORS episode (`/create` done). It pings the server every `pingIntervalMs` until `close()`,
 * and owns that loop. Every method rejects with the caller's abort reason, with `lost.reason` once
 * the session is lost, and with an `OrsError` `ors_session_closed` once it is closed (whichever of the
 * two came first). No error or tool error it hands out holds a value of the episode's secrets,
 * whichever endpoint it came from.
 */
export class OrsSession {
  /** The session id the server issued (`X-Session-ID`). */
  readonly sid: string;
  /** The environment the episode runs in (the `{env}` path segment). */
  readonly env: string;
  readonly #settings: OrsSessionSettings;
  readonly #redactor: Redactor;
  readonly #lost = new AbortController();
  /**
   * Aborted when the session is lost or closed, with the reason of whichever came first: every
   * request follows this one signal besides the caller's.
   */
  readonly #ended = new AbortController();
  /** Requests still in flight: a close aborts them, and only then needs its error. */
  #inFlight = 0;
  #pingTimer: ReturnType<typeof setTimeout> | undefined;
  #pinging: Promise<void> | undefined;
  #pingFailures = 0;
  #closed: Promise<void> | undefined;

  /** Starts the ping loop; use `OrsClient.openSession` rather than calling this directly. */
  constructor(sid: string, env: string, settings: OrsSessionSettings) {
    this.sid = sid;
    this.env = env;
    this.#settings = settings;
    this.#redactor = settings.redactor ?? new Redactor(undefined);
    this.#schedulePing();
  }

  /**
   * Aborted, with an `OrsError` code `ors_session_lost` as reason, when the server says the session
   * is gone (404/410 on any session endpoint) or pings keep failing. Never aborted by `close()`.
   */
  get lost(): AbortSignal {
    return this.#lost.signal;
  }

  /** True once `close()` was called (even while its deletes are still in flight). */
  get closed(): boolean {
    return this.#closed !== undefined;
  }

  /** The task's prompt blocks (`GET /{env}/prompt`). */
  async prompt(signal?: AbortSignal): Promise<Block[]> {
    return this.#request({ method: 'GET', path: `/${this.#envPath}/prompt`, idempotent: true }, BlocksSchema, signal);
  }

  /**
   * The tools of this task: `GET /{env}/task_tools`, falling back to the sessionless `/{env}/tools`
   * when the server answers 404 (servers that predate task tools). A 410 means the session is lost.
   */
  async tools(signal?: AbortSignal): Promise<ToolSpec[]> {
    try {
      const taskTools = { method: 'GET', path: `/${this.#envPath}/task_tools`, idempotent: true } as const;
      return (await this.#request(taskTools, ToolListSchema, signal, { keepOn404: true })).tools;
    } catch (error) {
      if (!(error instanceof OrsError && error.code === 'ors_session_lost' && statusOf(error) === 404)) throw error;
    }
    const sharedTools = { method: 'GET', path: `/${this.#envPath}/tools`, idempotent: true, kind: 'env' } as const;
    return (await this.#request(sharedTools, ToolListSchema, signal)).tools;
  }

  /**
   * Calls tool `name` with `input` and waits for its outcome, reconnecting by `task_id` when the
   * stream drops (the tool never runs twice). Closing the session aborts a call in flight.
   */
  async call(
    name: string,
    input: Record<string, unknown>,
    options: { signal?: AbortSignal } = {},
  ): Promise<OrsCallOutcome> {
    const signals = this.#enter(options.signal);
    try {
      return await callTool(
        {
          transport: this.#settings.transport,
          env: this.env,
          sid: this.sid,
          silenceTimeoutMs: this.#settings.callSilenceTimeoutMs,
          signals,
          onSessionLost: (error) => this.#markLost(error),
          redactor: this.#redactor,
        },
        name,
        input,
      );
    } catch (error) {
      throw this.#redactor.error(error);
    } finally {
      this.#inFlight--;
    }
  }

  /**
   * Ends the episode: stops the ping loop, aborts calls in flight, then sends `/delete` and
   * `/delete_session`, each bounded by the request timeout (not by any run's signal: a cancelled run
   * must still free its session). Idempotent (every call returns the same promise); never rejects.
   */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  get #envPath(): string {
    return encodeURIComponent(this.env);
  }

  async #close(): Promise<void> {
    clearTimeout(this.#pingTimer);
    this.#pingTimer = undefined;
    // Made only when a request is there to reject: an error's stack costs more than the rest of a close.
    if (this.#inFlight > 0) this.#endClosed();
    await this.#pinging;
    await deleteSession(this.#settings.transport, this.sid);
  }

  /**
   * Counts a request in flight and answers what it follows: the caller's signal and the session's
   * end (aborted already when the session is closed). Every request leaves with `#inFlight--`.
   */
  #enter(signal: AbortSignal | undefined): AbortParents {
    if (this.closed) this.#endClosed();
    this.#inFlight++;
    return [signal, this.#ended.signal];
  }

  #end(reason: unknown): void {
    if (!this.#ended.signal.aborted) this.#ended.abort(reason);
  }

  #endClosed(): void {
    if (this.#ended.signal.aborted) return;
    this.#end(
      new OrsError(`The ORS session ${this.sid} was closed; nothing more can be done in it.`, {
        code: 'ors_session_closed',
      }),
    );
  }

  async #request<S extends z.ZodType>(
    request: Omit<OrsRequest, 'kind' | 'sid' | 'signal'> & { kind?: OrsRequest['kind'] },
    schema: S,
    signal: AbortSignal | undefined,
    options: { keepOn404?: boolean } = {},
  ): Promise<z.output<S>> {
    const signals = this.#enter(signal);
    try {
      return await orsFetchJson(
        this.#settings.transport,
        { kind: 'session', ...request, sid: this.sid, signals, redact: this.#redactor },
        schema,
      );
    } catch (caught) {
      const error = this.#redactor.error(caught);
      const tolerated = options.keepOn404 === true && error instanceof OrsError && statusOf(error) === 404;
      if (error instanceof OrsError && error.code === 'ors_session_lost' && !tolerated) this.#markLost(error);
      throw error;
    } finally {
      this.#inFlight--;
    }
  }

  #markLost(error: OrsError): void {
    if (!this.#lost.signal.aborted) {
      clearTimeout(this.#pingTimer);
      this.#pingTimer = undefined;
      // The reason is what every later call rejects with, and what the run reports.
      const reason = this.#redactor.error(error);
      this.#lost.abort(reason);
      this.#end(reason);
    }
  }

  #schedulePing(): void {
    if (this.closed || this.#lost.signal.aborted) return;
    this.#pingTimer = setTimeout(() => {
      this.#pingTimer = undefined;
      this.#pinging = this.#ping().finally(() => {
        this.#pinging = undefined;
        this.#schedulePing();
      });
    }, this.#settings.pingIntervalMs);
  }

  async #ping(): Promise<void> {
    const signals = this.#enter(undefined);
    try {
      await orsFetchText(this.#settings.transport, {
        method: 'POST',
        path: '/ping',
        kind: 'session',
        sid: this.sid,
        idempotent: true,
        signals,
        redact: this.#redactor,
      });
      this.#pingFailures = 0;
    } catch (error) {
      if (this.#ended.signal.aborted) return;
      if (error instanceof OrsError && error.code === 'ors_session_lost') {
        this.#markLost(error);
        return;
      }
      this.#pingFailures += 1;
      if (this.#pingFailures >= PING_FAILURES_BEFORE_LOST) {
        const reason = error instanceof Error ? error.message : String(error);
        this.#markLost(
          new OrsError(
            `The ORS session ${this.sid} could not be kept alive: ${this.#pingFailures} pings in a row failed ` +
              `(last: ${reason}).`,
            { code: 'ors_session_lost', details: { sid: this.sid }, cause: error },
          ),
        );
      }
    } finally {
      this.#inFlight--;
    }
  }
}

function statusOf(error: OrsError): number | undefined {
  const details = error.details as { status?: unknown } | undefined;
  return typeof details?.status === 'number' ? details.status : undefined;
}
