import type { ModelRegistry } from './model-registry.js';

/** What `GET /v1/models` answers, before it is put in OpenAI's list shape. */
export interface ModelListing {
  models: Array<{ id: string; provider: string }>;
  /** The model of requests that name none, as `provider:name`. */
  defaultModel: string;
  /** Providers whose vendor was asked which models it serves and did not say, and why; their default is listed instead. */
  unreachable: Array<{ provider: string; error: string }>;
}

/** Settings of a {@link ModelCatalog}; durations in milliseconds. */
export interface ModelCatalogOptions {
  /** `RUNBRIDGE_MODEL_LIST_MAX_MODELS`. */
  maxModels: number;
  /** `RUNBRIDGE_MODEL_LIST_MAX_BYTES`. */
  maxBytes: number;
  /** How long a vendor's list is used before it is asked again; default 30 000, as for environments. */
  ttlMs?: number;
  /** How long a vendor may take to answer; default 5 000. */
  timeoutMs?: number;
  /** How long a failure is reported before the vendor is asked again; default 5 000. */
  failureTtlMs?: number;
  now?: () => number;
}

type Entry = { names: readonly string[]; at: number } | { error: string; at: number };

/**
 * The models `GET /v1/models` lists: what each provider with `servedModels` (an OpenAI-compatible
 * server) says it serves, asked at most once per `ttlMs` whoever asks meanwhile, and the configured
 * names of the others. A list past its time is still answered while a fresh one is asked for in the
 * background, so only the first request, or one after a failure, waits for the vendor — up to
 * `timeoutMs`. A vendor that does not answer is listed by its default model, and named with the reason
 * in `unreachable`. Nothing is asked at construction: {@link ModelCatalog.warm} starts the first asking
 * without waiting for it, so start-up never waits on a model server.
 */
export class ModelCatalog {
  readonly #registry: ModelRegistry;
  readonly #options: Required<Omit<ModelCatalogOptions, 'now'>>;
  readonly #now: () => number;
  readonly #entries = new Map<string, Entry>();
  readonly #asking = new Map<string, Promise<void>>();
  readonly #stop = new AbortController();

  constructor(registry: ModelRegistry, options: ModelCatalogOptions) {
    this.#registry = registry;
    this.#options = { ttlMs: 30_000, timeoutMs: 5_000, failureTtlMs: 5_000, ...options };
    this.#now = options.now ?? Date.now;
  }

  /** Starts asking every vendor that lists its models, without waiting for the answers. */
  warm(): void {
    for (const provider of this.#askers()) void this.#ask(provider.name);
  }

  /** The models to list now, waiting only for vendors with no list yet (or after a failure). */
  async list(): Promise<ModelListing> {
    const entries = await Promise.all(
      this.#askers().map(async ({ name }) => {
        const entry = this.#entries.get(name);
        if (entry !== undefined && 'names' in entry) {
          // A list past its time is answered while the next one is asked for.
          if (this.#now() - entry.at >= this.#options.ttlMs) void this.#ask(name);
          return [name, entry] as const;
        }
        if (entry === undefined || this.#now() - entry.at >= this.#options.failureTtlMs) await this.#ask(name);
        return [name, this.#entries.get(name)!] as const;
      }),
    );
    const served = new Map<string, readonly string[]>();
    const unreachable: ModelListing['unreachable'] = [];
    for (const [name, entry] of entries) {
      if ('names' in entry) served.set(name, entry.names);
      else unreachable.push({ provider: name, error: entry.error });
    }
    return { models: this.#registry.list(served), defaultModel: this.#registry.normalise(undefined), unreachable };
  }

  /** Aborts what is being asked; nothing is asked after. */
  close(): void {
    this.#stop.abort();
  }

  #askers() {
    return this.#registry.providers.filter((provider) => provider.servedModels !== undefined);
  }

  /** Asks `name`'s vendor once, however many callers want the answer meanwhile. */
  #ask(name: string): Promise<void> {
    const asking = this.#asking.get(name);
    if (asking !== undefined) return asking;
    if (this.#stop.signal.aborted) return Promise.resolve();
    const provider = this.#registry.providers.find((candidate) => candidate.name === name)!;
    const { maxModels, maxBytes, timeoutMs } = this.#options;
    const done = provider.servedModels!({ maxModels, maxBytes, timeoutMs, signal: this.#stop.signal })
      .then(
        (names): Entry => ({ names, at: this.#now() }),
        (error: unknown): Entry => ({ error: error instanceof Error ? error.message : String(error), at: this.#now() }),
      )
      .then((entry) => {
        this.#entries.set(name, entry);
        this.#asking.delete(name);
      });
    this.#asking.set(name, done);
    return done;
  }
}
