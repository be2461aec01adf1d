// Plays tasks × samples episodes of arith with generateRollouts, writes their JSONL trajectories to
// OUT (the manifest beside it), then prints the file's mean reward and pass@k from the manifest.
//
//   npx tsx examples/rollouts/generate.ts OUT.jsonl [TASKS] [SAMPLES]     # default tasks 0:20, 4 samples
//
// The model is RUNBRIDGE_MODEL (see docs/models.md; offline when no key is set); ORS_URL, else the
// built-in ORS server on loopback. Rerunning with the same OUT resumes; Ctrl-C interrupts cleanly.
import { loadConfig } from '../../src/config/index.js';
import { configuredProviders } from '../../src/configured-providers.js';
import { connectOrs } from '../../src/connect-ors.js';
import { ModelRegistry } from '../../src/models/model-registry.js';
import { generateRollouts } from '../../src/rollouts/generate-rollouts.js';

const [out, tasks = '0:20', samples = '4'] = process.argv.slice(2);
if (!out) {
  console.error('usage: npx tsx examples/rollouts/generate.ts OUT.jsonl [TASKS] [SAMPLES]');
  process.exit(2);
}

const config = loadConfig();
const model = new ModelRegistry(configuredProviders(config), config.defaultModel).resolve(undefined);
const { ors, orsServer } = await connectOrs(config);
const stop = new AbortController();
process.once('SIGINT', () => stop.abort()); // episodes in flight are cancelled; no half-written line
try {
  const { status, manifestPath, manifest } = await generateRollouts({
    ors,
    model,
    env: 'arith',
    tasks,
    samples: Number(samples),
    // Above 0 the samples of one task differ, which is what makes pass@k above 1 mean anything.
    sampling: { temperature: 1 },
    out,
    signal: stop.signal,
    onRecord: (record) =>
      console.log(`${record.group_id} sample ${record.sample_index}: ${record.status}, reward ${record.reward}`),
  });
  const { mean_reward, pass_at_k } = manifest.results;
  const passAtK = Object.entries(pass_at_k).map(([k, value]) => `pass@${k} ${value.toFixed(3)}`);
  console.log(
    `${status}: mean reward ${mean_reward?.toFixed(3) ?? 'n/a'} · ${passAtK.join(' · ')} · manifest ${manifestPath}`,
  );
} finally {
  await orsServer?.close();
}
