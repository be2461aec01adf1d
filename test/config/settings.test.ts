import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Config, WebhookSettings } from '../../src/config/index.js';
import { settingsOf } from '../../src/config/setting.js';
import { settings } from '../../src/config/settings.js';

/** Variables the code reads that are not the server's settings: the CLI's bearer key for `run --server`. */
const NOT_SETTINGS = new Set(['RUNBRIDGE_API_KEY']);

describe('the settings table', () => {
  it('is where the configuration type comes from: one field per entry, of the type its kind reads', () => {
    expectTypeOf<keyof Config>().toEqualTypeOf<keyof typeof settings>();
    expectTypeOf<Config['port']>().toEqualTypeOf<number>();
    expectTypeOf<Config['orsUrl']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<Config['apiKeys']>().toEqualTypeOf<string[]>();
    expectTypeOf<Config['ui']>().toEqualTypeOf<{ enabled: boolean }>();
    // A derived default makes the field whole, though its variable may be unset.
    expectTypeOf<Config['maxConnections']>().toEqualTypeOf<number>();
    expectTypeOf<Config['maxRunningPerKey']>().toEqualTypeOf<number>();
    expectTypeOf<Config['defaultModel']>().toEqualTypeOf<string>();
    expectTypeOf<WebhookSettings>().toEqualTypeOf<Config['webhooks']>();
    expectTypeOf<keyof WebhookSettings>().toEqualTypeOf<keyof typeof settings.webhooks>();
  });

  it('names each variable once, and says for each what it accepts, its default and what it does', () => {
    const entries = settingsOf(settings);
    const variables = entries.map((entry) => entry.variable);
    expect(new Set(variables).size).toBe(variables.length);
    for (const entry of entries) {
      expect(entry.variable).toMatch(/^[A-Z][A-Z0-9_]*$/);
      expect([entry.accepts, entry.default, entry.description].every((text) => text.trim() !== '')).toBe(true);
    }
  });

  it('has every RUNBRIDGE_ variable that src/ and adapters/ name, so no message names one that does not exist', () => {
    const variables = new Set(settingsOf(settings).map((entry) => entry.variable));
    const named = new Set<string>();
    for (const root of ['src', 'adapters']) {
      const folder = new URL(`../../${root}/`, import.meta.url);
      for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
        if (!/\.tsx?$/.test(file)) continue;
        for (const [name] of readFileSync(new URL(file, folder), 'utf8').matchAll(/\bRUNBRIDGE_[A-Z0-9_]*[A-Z0-9]/g)) {
          named.add(name);
        }
      }
    }
    expect([...named].filter((name) => !variables.has(name) && !NOT_SETTINGS.has(name))).toEqual([]);
    // The check reads what it should: the table's own variables are among those named.
    expect(named.has('RUNBRIDGE_SWEEP_SECONDS')).toBe(true);
  });
});
