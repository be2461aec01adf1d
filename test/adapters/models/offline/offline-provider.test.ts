import { describe, expect, it } from 'vitest';
import { createOfflineProvider, DEFAULT_TOKEN_DELAY_MS } from '../../../../adapters/models/offline/offline-provider.js';
import { BadRequestError } from '../../../../src/errors.js';
import { ModelRegistry } from '../../../../src/models/model-registry.js';

describe('createOfflineProvider', () => {
  it('registers as "offline" with one unnamed model whose id is "offline"', () => {
    const provider = createOfflineProvider();
    expect(provider).toMatchObject({ name: 'offline', defaultModel: '', listedModels: [] });
    expect(provider.create('').id).toBe('offline');
    const registry = new ModelRegistry([provider], 'offline');
    expect(registry.normalise(undefined)).toBe('offline');
    expect(registry.resolve('offline').id).toBe('offline');
    expect(registry.list()).toEqual([{ id: 'offline', provider: 'offline' }]);
  });

  it('refuses a model name after "offline:" with a 400 unknown_model', () => {
    const attempt = () => createOfflineProvider().create('gpt-5');
    expect(attempt).toThrow(BadRequestError);
    expect(attempt).toThrow(/"offline:gpt-5" does not exist. Use "offline"/);
    try {
      attempt();
    } catch (error) {
      expect(error).toMatchObject({ code: 'unknown_model', status: 400 });
    }
  });

  it('defaults to a few milliseconds per token and refuses a negative delay', () => {
    expect(DEFAULT_TOKEN_DELAY_MS).toBeGreaterThan(0);
    expect(DEFAULT_TOKEN_DELAY_MS).toBeLessThanOrEqual(20);
    expect(() => createOfflineProvider({ tokenDelayMs: -1 })).toThrow(RangeError);
    expect(() => createOfflineProvider({ tokenDelayMs: Number.NaN })).toThrow(RangeError);
  });
});
