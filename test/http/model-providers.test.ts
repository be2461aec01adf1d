import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { type Runbridge, startRunbridge } from '../../src/main.js';
import { silentLogger } from '../../src/telemetry/logger.js';
import { scriptedProvider } from '../support/scripted-model.js';

/** `startRunbridge({ providers })`: providers of your own beside the configured ones (docs/models.md). */
describe('providers given to startRunbridge', () => {
  let bridge: Runbridge | undefined;
  afterEach(async () => {
    await bridge?.shutdown();
    bridge = undefined;
  });

  async function modelIds(): Promise<string[]> {
    const answer = (await (await fetch(`${bridge!.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    return answer.data.map((model) => model.id);
  }

  it('are added to the configured ones, so the default model stays the offline one', async () => {
    bridge = await startRunbridge({
      config: loadConfig({ PORT: '0', HOST: '127.0.0.1' }),
      providers: [scriptedProvider({ mine: [{ text: 'Mine.' }] })],
      logger: silentLogger,
    });
    expect(await modelIds()).toEqual(['offline', 'scripted:mine']);
  });

  it('replace a configured provider of the same name, keeping the others', async () => {
    const openai = { ...scriptedProvider({ 'gpt-test': [{ text: 'Scripted.' }] }), name: 'openai' };
    bridge = await startRunbridge({
      config: loadConfig({ PORT: '0', HOST: '127.0.0.1', OPENAI_API_KEY: 'sk-unused' }),
      providers: [openai],
      logger: silentLogger,
    });
    const ids = await modelIds();
    expect(ids).toContain('offline');
    expect(ids).toContain('openai:gpt-test');
    expect(ids.filter((id) => id.startsWith('openai:'))).toEqual(['openai:gpt-test']);
    expect(ids.some((id) => id.startsWith('openai-responses:'))).toBe(true);
  });
});
