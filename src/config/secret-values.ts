import type { Setting, SettingsTree } from './setting.js';
import { type Config, settings } from './settings.js';

/**
 * The values of every setting marked `secret` (the API keys, the provider keys, the webhook secret,
 * the metrics token, `RUNBRIDGE_SECRET`) as `config` holds them, unset ones left out: what the runs
 * cut out of everything they write (docs/security.md, "Secrets are never echoed").
 */
export function secretValues(config: Config): string[] {
  return valuesIn(settings as unknown as SettingsTree, config as unknown as Record<string, unknown>);
}

function valuesIn(tree: SettingsTree, values: Record<string, unknown>): string[] {
  return Object.entries(tree).flatMap(([key, node]) => {
    const value = values[key];
    if (typeof node.variable !== 'string') return valuesIn(node as SettingsTree, value as Record<string, unknown>);
    if ((node as Setting).secret !== true) return [];
    return (Array.isArray(value) ? value : [value]).filter((item): item is string => typeof item === 'string');
  });
}
