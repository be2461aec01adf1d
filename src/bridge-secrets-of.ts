import { type Config, secretValues } from './config/index.js';
import type { ModelProvider } from './models/model.js';

/**
 * The bridge's own secrets, never to come back out of an episode whatever a model or an environment
 * says (docs/security.md): the settings marked secret, and what `providers` send their vendors.
 */
export function bridgeSecretsOf(config: Config, providers: readonly ModelProvider[]): string[] {
  return [...secretValues(config), ...providers.flatMap((provider) => provider.secrets ?? [])];
}
