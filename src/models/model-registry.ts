import { BadRequestError } from '../errors.js';
import { splitModelRef } from '../protocol/run-request.js';
import type { Model, ModelProvider } from './model.js';

/**
 * Resolves `provider:name` references to models. Providers are registered by `main.ts` (only those
 * whose credentials are configured, plus `offline`), so an unknown provider is the caller's mistake:
 * a 400 that lists what is available.
 */
export class ModelRegistry {
  readonly #providers = new Map<string, ModelProvider>();
  /** Own entries only: a name a request chose (`constructor`) must not find what every object inherits. */
  readonly #howToEnable: ReadonlyMap<string, string>;

  constructor(
    /** The providers, by name; of two with the same name, the later one is kept. */
    providers: readonly ModelProvider[],
    /** The reference used when a request names no model. */
    readonly defaultModel: string,
    /** How to enable each provider that may be missing, by name (e.g. which key to set); said when one is asked for. */
    howToEnable: Readonly<Record<string, string>> = {},
  ) {
    for (const provider of providers) this.#providers.set(provider.name, provider);
    this.#howToEnable = new Map(Object.entries(howToEnable));
  }

  /** The canonical `provider:name` for `ref` (or the default), or a 400 `unknown_model`. */
  normalise(ref: string | undefined): string {
    const { provider: providerName, name } = splitModelRef(ref ?? this.defaultModel);
    const provider = this.#providers.get(providerName);
    if (!provider) {
      throw new BadRequestError(this.#unknownProvider(providerName, name === undefined), { code: 'unknown_model' });
    }
    return qualify(provider.name, name ?? provider.defaultModel);
  }

  /** A ready model for `ref` (or the default). */
  resolve(ref: string | undefined): Model {
    const { provider, name } = splitModelRef(this.normalise(ref));
    return this.#providers.get(provider)!.create(name ?? '');
  }

  /**
   * What to say about `name`, which names no configured provider: how to enable it when it is a
   * provider this server knows of; for a bare word, which looks like a model's name (`gpt-4o`), the
   * `provider:name` it probably meant; else which providers there are.
   */
  #unknownProvider(name: string, bare: boolean): string {
    const configured = `Providers here: ${[...this.#providers.keys()].join(', ')}.`;
    const enable = this.#howToEnable.get(name);
    if (enable !== undefined) return `The model provider "${name}" is not configured: ${enable}. ${configured}`;
    if (!bare) return `Unknown model provider "${name}". ${configured}`;
    const provider = /^claude/i.test(name) ? 'anthropic' : 'openai';
    const setup = this.#providers.has(provider) ? '' : ` (${this.#howToEnable.get(provider) ?? `enable ${provider}`})`;
    return (
      `"${name}" is not a model provider: models are named provider:name. ` +
      `Did you mean "${provider}:${name}"${setup}? ${configured}`
    );
  }

  /** The providers, one per name (of two with the same name, the later one). */
  get providers(): ModelProvider[] {
    return [...this.#providers.values()];
  }

  /**
   * Every listed model as `provider:name`, for `GET /v1/models`: of a provider whose vendor said which
   * models it serves (`served`, by provider name), those; of the others, the default and `listedModels`.
   */
  list(served: ReadonlyMap<string, readonly string[]> = new Map()): Array<{ id: string; provider: string }> {
    return this.providers.flatMap((provider) =>
      [...new Set(served.get(provider.name) ?? [provider.defaultModel, ...provider.listedModels])].map((name) => ({
        id: qualify(provider.name, name),
        provider: provider.name,
      })),
    );
  }
}

/** `provider:name`, or the bare provider for a provider whose only model has no name (`offline`). */
function qualify(provider: string, name: string): string {
  return name === '' ? provider : `${provider}:${name}`;
}
