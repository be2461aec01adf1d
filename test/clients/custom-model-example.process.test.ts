import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runExample } from '../support/run-example.js';
import { FROM_SOURCES } from '../support/spawn-runbridge.js';

const SCRIPT = fileURLToPath(new URL('../../examples/node/custom-model.mjs', import.meta.url));

/**
 * `examples/node/custom-model.mjs`, the model of your own that docs/models.md shows: plain Node ESM
 * on `runbridge` and `runbridge/client`, run by `node` with the package's name resolved to the sources.
 */
describe('the custom model example', () => {
  it('adds its provider beside the built-in ones and plays an arith task with it to reward 1', async () => {
    const { stdout } = await runExample(process.execPath, [...FROM_SOURCES.execArgv, SCRIPT], {
      ...FROM_SOURCES.env,
      // The built-in ORS server and no model keys: the configured providers are `offline` alone.
      ORS_URL: '',
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
      ANTHROPIC_API_KEY: '',
      RUNBRIDGE_MODEL: 'offline',
      RUNBRIDGE_API_KEYS: '',
    });
    expect(stdout.trimEnd().split('\n')).toEqual([
      'models: offline, mine:calc',
      'turn 1: Computing (12 * 8) + 4.',
      '  → calculator {"expression":"(12 * 8) + 4"}',
      '  ← (12 * 8) + 4 = 100 (reward null)',
      'turn 2: The calculator says 100.',
      '  → submit {"answer":100}',
      '  ← Correct: 100 is the right answer. The episode is finished. (reward 1)',
      'completed: reward 1, 2 turns, stop finished',
    ]);
  });
});
