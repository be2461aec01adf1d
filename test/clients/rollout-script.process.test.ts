import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RolloutManifestSchema } from '../../src/rollouts/rollout-manifest.js';

const SCRIPT = fileURLToPath(new URL('../../examples/rollouts/generate.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `examples/rollouts/generate.ts`, run through tsx as a reader would, with the offline model and the built-in ORS server. */
describe('the rollout example script', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runbridge-rollout-example-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes one JSONL line per episode and prints the mean reward and pass@k of its manifest', {
    timeout: 60_000,
  }, async () => {
    const out = join(dir, 'arith.jsonl');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT, out, '0:3', '2'], {
      cwd: ROOT,
      env: { ...process.env, RUNBRIDGE_MODEL: 'offline', ORS_URL: '' },
      timeout: 60_000,
    });

    const records = (await readFile(out, 'utf8')).trimEnd().split('\n');
    expect(records).toHaveLength(6);
    const manifest = RolloutManifestSchema.parse(JSON.parse(await readFile(join(dir, 'arith.manifest.json'), 'utf8')));
    expect(manifest).toMatchObject({
      status: 'finished',
      config: { env: 'arith', tasks: '0:3', samples: 2, model: 'offline' },
    });

    const lines = stdout.trimEnd().split('\n');
    expect(lines.slice(0, -1).sort()).toEqual(
      records
        .map((line) => JSON.parse(line) as { group_id: string; sample_index: number; reward: number | null })
        .map((record) => `${record.group_id} sample ${record.sample_index}: completed, reward ${record.reward}`)
        .sort(),
    );
    const { mean_reward, pass_at_k } = manifest.results;
    expect(Object.keys(pass_at_k)).toEqual(['1', '2']);
    expect(lines.at(-1)).toBe(
      `finished: mean reward ${mean_reward!.toFixed(3)} · pass@1 ${pass_at_k['1']!.toFixed(3)} · pass@2 ${pass_at_k['2']!.toFixed(3)} · manifest ${join(dir, 'arith.manifest.json')}`,
    );
  });
});
