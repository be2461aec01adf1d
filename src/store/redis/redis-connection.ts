import { Redis, ReplyError } from 'ioredis';
import { StoreUnavailableError } from '../../runs/store-unavailable-error.js';
import { SCRIPTS, type ScriptArgs, type ScriptName, scriptArgv, scriptSource } from './redis-scripts.js';

type ScriptCall = (...args: Array<string | number>) => Promise<unknown>;

/** Longest wait between reconnection attempts: the instance is back within this of Redis returning. */
const MAX_RECONNECT_DELAY_MS = 1000;

/** How long one blocking stream read waits before it is sent again (a bound only; new entries end it at once). */
export const READ_BLOCK_MS = 5000;

/** How long the key a health check writes lives: it is written again at every check. */
const PROBE_TTL_MS = 60_000;

/**
 * The replies by which Redis refuses a command for its own state, not for the command: what each says
 * to an operator. Redis writes the code first; inside a script older versions put it after a `-`.
 */
const REFUSALS: Record<string, string> = {
  OOM: 'is out of memory (`maxmemory` under a `noeviction` policy) and refuses writes',
  READONLY: 'is a read-only replica and refuses writes',
  MISCONF: 'cannot save to disk (`stop-writes-on-bgsave-error`) and refuses writes',
  NOREPLICAS: 'has fewer replicas than `min-replicas-to-write` and refuses writes',
  MASTERDOWN: 'lost its master and refuses commands',
  LOADING: 'is loading its data and refuses commands',
  BUSY: 'is busy running a script and refuses commands',
};
const REFUSAL = new RegExp(`(?:^|-)(${Object.keys(REFUSALS).join('|')})\\b`);

/**
 * The store's connections to one Redis: `command` for everything that answers at once, with the
 * store's scripts defined on it, and `blocking` for the blocking stream reads (a blocked connection
 * can send nothing else). Both reconnect by themselves for as long as it takes. While Redis is
 * unreachable, commands fail at once (no offline queue, so no request waits on a dead socket) with
 * {@link StoreUnavailableError}.
 */
export class RedisConnection {
  readonly command: Redis;
  readonly blocking: Redis;
  readonly #listeners = new Set<(up: boolean) => void>();
  /** How long a health check waits for PING: about a second, never more than a command may take. */
  readonly #pingMs: number;
  /** The key a health check writes, so a Redis that answers but refuses writes is seen; none: PING alone. */
  readonly #probeKey: string | undefined;

  /**
   * `commandTimeoutMs` bounds every command and each connection attempt: a Redis that stalls (frozen,
   * or a network that drops packets) fails the command, so the request behind it answers 503 instead of
   * hanging until Redis wakes. A blocking read is given its own block time on top.
   */
  constructor(url: string, options: { commandTimeoutMs: number; probeKey?: string }) {
    this.#pingMs = Math.min(1000, options.commandTimeoutMs);
    this.#probeKey = options.probeKey;
    const common = {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times: number) => Math.min(times * 50, MAX_RECONNECT_DELAY_MS),
      connectTimeout: options.commandTimeoutMs,
      // Connected by `connect`, which waits for Redis at start-up.
      lazyConnect: true,
    };
    this.command = new Redis(url, { ...common, commandTimeout: options.commandTimeoutMs, connectionName: 'runbridge' });
    this.blocking = new Redis(url, {
      ...common,
      commandTimeout: READ_BLOCK_MS + options.commandTimeoutMs,
      connectionName: 'runbridge-blocking',
    });
    for (const [name, spec] of Object.entries(SCRIPTS)) {
      this.command.defineCommand(name, { numberOfKeys: 0, lua: scriptSource(spec) });
    }
    for (const client of [this.command, this.blocking]) {
      // Errors are reported through the state listeners and the failing commands; an unhandled
      // 'error' event would be printed by ioredis on every reconnection attempt.
      client.on('error', () => undefined);
    }
    this.command.on('ready', () => this.#emit(true));
    this.command.on('close', () => this.#emit(false));
  }

  /** True while the command connection is up. */
  get up(): boolean {
    return this.command.status === 'ready';
  }

  /** Connects both; resolves once the command connection is up, or throws when `timeoutMs` passes first. */
  async connect(timeoutMs: number): Promise<void> {
    void this.blocking.connect().catch(() => undefined);
    const connecting = this.command.connect().catch(() => undefined);
    const deadline = Date.now() + timeoutMs;
    await connecting;
    while (!this.up) {
      if (Date.now() >= deadline) throw new StoreUnavailableError();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Calls `listener(up)` whenever the command connection goes down or comes back. */
  onStateChange(listener: (up: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Runs script `name` on the keys under `prefix`, with its named `args` (and the list `rest` after them, for a script that takes one). */
  script<Name extends ScriptName>(
    name: Name,
    prefix: string,
    args: ScriptArgs<Name>,
    rest?: ReadonlyArray<string | number>,
  ): Promise<unknown> {
    const argv = scriptArgv(name, prefix, args, rest);
    return this.run(() => (this.command as unknown as Record<ScriptName, ScriptCall>)[name](...argv));
  }

  /**
   * Answers once Redis answers within about a second — and, with a probe key, takes a write: PING
   * succeeds on a Redis out of memory, which refuses every new run. A {@link StoreUnavailableError}
   * that says why otherwise.
   */
  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer to PING within ${this.#pingMs} ms`)), this.#pingMs);
    });
    try {
      const key = this.#probeKey;
      const probe = key === undefined ? this.command.ping() : this.command.set(key, '1', 'PX', PROBE_TTL_MS);
      await this.run(() => Promise.race([probe, late]));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Runs `work` on the connections, turning a connection failure, and Redis refusing commands for its
   * own state (out of memory, read-only, …), into {@link StoreUnavailableError}.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof ReplyError)) throw new StoreUnavailableError(undefined, error);
      const refusal = refusalOf(error as Error);
      // Any other reply error is Redis refusing the command itself: a bug here, not an outage.
      if (refusal === undefined) throw error;
      throw new StoreUnavailableError(
        `The run store is unavailable: Redis ${REFUSALS[refusal.code]} ("${refusal.reply}"). Retry in a few ` +
          'seconds; the operator frees memory or fixes Redis, and the bridge serves again by itself.',
        error,
      );
    }
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    for (const client of [this.command, this.blocking]) client.disconnect(false);
  }

  #emit(up: boolean): void {
    for (const listener of this.#listeners) listener(up);
  }
}

/**
 * The refusal a reply error is, if it is one: its own, or — for a transaction Redis discarded
 * (`EXECABORT`) — that of a command queued in it.
 */
function refusalOf(error: Error): { code: string; reply: string } | undefined {
  const replies = [error, ...((error as { previousErrors?: unknown[] }).previousErrors ?? [])];
  for (const reply of replies) {
    const message = reply instanceof Error ? reply.message : String(reply);
    const code = REFUSAL.exec(message)?.[1];
    if (code !== undefined) return { code, reply: message.split(/\. script: |\n/)[0]!.replace(/\.$/, '') };
  }
  return undefined;
}
