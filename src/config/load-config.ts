import { ConfigError } from './config-error.js';
import { type DeriveInputs, mapSettings, type ParsedValues, type Setting, settingsOf } from './setting.js';
import { type Config, settings } from './settings.js';

/**
 * Reads and checks the configuration from `env` (default: `process.env`), each setting as its entry
 * in the table says. A value it cannot use is a {@link ConfigError} that lists every such value: the
 * variable, what it accepts, and what it got.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const values = new Map<Setting<unknown, unknown, unknown>, unknown>();
  const problems: string[] = [];
  for (const entry of settingsOf(settings)) {
    const raw = env[entry.variable];
    const parsed = entry.schema.safeParse(raw);
    if (parsed.success) {
      values.set(entry, parsed.data);
      continue;
    }
    // Start-up errors end up in logs: a secret's value stays out of them.
    const got = entry.secret ? `${raw?.length ?? 0} characters, not shown` : JSON.stringify(raw);
    problems.push(...parsed.error.issues.map((issue) => `${entry.variable}: ${issue.message} (got ${got})`));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  // A derived default reads the other settings as their variables said; that they are in the table,
  // with the types it expects, is checked here at compile time.
  const inputs: DeriveInputs<typeof settings> = mapSettings(settings, (entry) => values.get(entry)) as ParsedValues<
    typeof settings
  >;
  return mapSettings(settings, (entry) =>
    entry.derive ? entry.derive(values.get(entry), inputs) : values.get(entry),
  ) as Config;
}
