import { BadRequestError } from '../../../src/errors.js';
import type { Model, ModelProvider } from '../../../src/models/model.js';
import { OfflineModel } from './offline-model.js';

/** The default pause before each streamed token: fast, yet visibly streaming in a demo. */
export const DEFAULT_TOKEN_DELAY_MS = 4;

/** Knobs of {@link createOfflineProvider}. */
export interface OfflineProviderOptions {
  /** Pause before each streamed token, in ms; default {@link DEFAULT_TOKEN_DELAY_MS}; 0 for tests and benchmarks. */
  tokenDelayMs?: number;
}

/**
 * The `offline` provider: one unnamed model, so the model id is just `offline`. Needs no key and no
 * network; `main.ts` always registers it. A name after `offline:` is refused with a 400.
 */
export function createOfflineProvider(options: OfflineProviderOptions = {}): ModelProvider {
  const tokenDelayMs = options.tokenDelayMs ?? DEFAULT_TOKEN_DELAY_MS;
  if (!Number.isFinite(tokenDelayMs) || tokenDelayMs < 0) {
    throw new RangeError(`tokenDelayMs must be a number of milliseconds ≥ 0, got ${tokenDelayMs}`);
  }
  return {
    name: 'offline',
    listedModels: [],
    defaultModel: '',
    create(modelName: string): Model {
      if (modelName !== '') {
        throw new BadRequestError(
          `The offline provider has a single model; "offline:${modelName}" does not exist. Use "offline".`,
          {
            code: 'unknown_model',
          },
        );
      }
      return new OfflineModel({ tokenDelayMs });
    },
  };
}
