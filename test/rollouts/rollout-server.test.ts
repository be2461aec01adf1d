import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RolloutCommandIo, runRolloutCommand } from '../../src/commands/rollout-command.js';
import { exportRollouts } from '../../src/rollouts/export/export-rollouts.js';
import { manifestPathFor } from '../../src/rollouts/rollout-manifest.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { eventually } from '../support/eventually.js';
import { postRollout } from '../support/rollout-client.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { deferred } from '../support/test-environment.js';
import { keysOf, type RolloutRig, readManifestFile, readRecords, startRolloutRig } from './rollout-rig.js';

/** An io that records what the command writes and never hears a signal. */
function testIo(env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: RolloutCommandIo = {
    env,
    stdout: { write: (text: string) => out.push(text), isTTY: false },
    stderr: (text) => err.push(text),
    onStop: () => () => undefined,
  };
  return { io, out: () => out.join(''), err: () => err.join('') };
}

const KEY = 'rollout-cli-key-0123456789';

/** `runbridge rollout --server` (docs/rollouts.md, "The service"). */
describe('runbridge rollout --server', () => {
  let bridge: TestBridge;
  let rig: RolloutRig;

  beforeAll(async () => {
    bridge = await startTestBridge({ RUNBRIDGE_API_KEYS: KEY }, { apiKey: KEY });
    rig = await startRolloutRig();
  });
  afterAll(async () => {
    await bridge?.shutdown();
    await rig?.close();
  });

  const args = (file: string) => [
    '--server',
    bridge.url,
    '--env',
    'arith',
    '--tasks',
    '0:5',
    '--samples',
    '2',
    '--model',
    'offline',
    '--out',
    file,
  ];
  const batches = async () =>
    ((await (await bridge.fetch('/v1/rollouts?limit=100')).json()) as { data: Array<{ rollout_id: string }> }).data;

  it('streams the batch played on the bridge into the same JSONL file and manifest, and a rerun resumes the same batch', async () => {
    const file = rig.path('served.jsonl');
    const { io, out } = testIo({ RUNBRIDGE_API_KEY: KEY });
    expect(await runRolloutCommand(args(file), io)).toBe(0);
    const records = readRecords(file);
    const plan = planRollouts({ env: 'arith', split: 'train', indices: [0, 1, 2, 3, 4], samples: 2, masterSeed: 0 });
    expect(keysOf(records).sort()).toEqual(plan.map((pair) => pair.key).sort());
    const manifest = readManifestFile(manifestPathFor(file));
    expect(manifest).toMatchObject({
      status: 'finished',
      config: { env: 'arith', split: 'train', tasks: '0:5', samples: 2, seed: 0 },
      progress: { planned: 10, completed: 10, remaining: 0, written: 10, skipped: 0 },
    });
    expect(out()).toMatch(/wrote 10 record\(s\)/);
    const [batch] = await batches();

    // Lose the last three lines: the rerun takes the same batch and writes exactly those again.
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(file, `${lines.slice(0, 7).join('\n')}\n`);
    const again = testIo({ RUNBRIDGE_API_KEY: KEY });
    expect(await runRolloutCommand(args(file), again.io)).toBe(0);
    expect(again.out()).toMatch(/wrote 3 record\(s\).*7 pair\(s\) were already done/);
    expect(keysOf(readRecords(file)).sort()).toEqual(plan.map((pair) => pair.key).sort());
    expect((await batches()).map((listed) => listed.rollout_id)).toEqual([batch!.rollout_id]);

    // The file exports as any rollout file does.
    const exported = await exportRollouts({
      inputs: [file],
      format: 'grpo',
      out: rig.path('served.grpo.jsonl'),
      filters: {},
      onWarning: () => undefined,
    });
    expect(exported).toMatchObject({ rows: 10, groups: 5 });
  });

  it('asks for --api-key when the bridge wants one, and exits 3', async () => {
    const { io, err } = testIo();
    expect(await runRolloutCommand(args(rig.path('keyless.jsonl')), io)).toBe(3);
    expect(err()).toMatch(/wants an API key: pass --api-key KEY, or set RUNBRIDGE_API_KEY/);
  });

  it('exits 2 with the bridge’s reason for tasks out of range, and refuses --retry-failed', async () => {
    const bad = testIo({ RUNBRIDGE_API_KEY: KEY });
    const file = rig.path('bad.jsonl');
    expect(await runRolloutCommand([...args(file), '--tasks', '990:1010'], bad.io)).toBe(2);
    expect(bad.err()).toMatch(/out of range/);
    const retry = testIo({ RUNBRIDGE_API_KEY: KEY });
    expect(await runRolloutCommand([...args(file), '--retry-failed'], retry.io)).toBe(2);
    expect(retry.err()).toMatch(/--retry-failed, --ors-url and --workers apply to a batch played here/);
  });
});

describe('the progress of runbridge rollout --server', () => {
  it('ends on a line with every pair done and none running', async () => {
    const bridge = await startTestBridge();
    const rig = await startRolloutRig();
    try {
      const file = rig.path('progress.jsonl');
      const { io, out } = testIo();
      const args = ['--server', bridge.url, '--env', 'arith', '--tasks', '0:4', '--samples', '2', '--model', 'offline'];
      expect(await runRolloutCommand([...args, '--out', file], io)).toBe(0);
      const lines = out()
        .split('\n')
        .filter((line) => line.startsWith('rollouts: '));
      expect(lines.at(-1)).toMatch(/^rollouts: 8\/8 done \(8 completed, 0 failed, 0 skipped\), 0 running,/);
    } finally {
      await bridge.shutdown();
      await rig.close();
    }
  });
});

/**
 * A batch that fills its key's share of the queue is still answered when its request is sent again with
 * the same Idempotency-Key (docs/api.md, "Rollout batches"): the key is looked up before the queue.
 */
describe('a queued batch sent again with its Idempotency-Key', () => {
  let bridge: TestBridge;
  let rig: RolloutRig;
  const gate = deferred();

  beforeAll(async () => {
    // One run slot, held by a gated run, and room in the queue for exactly one batch of four pairs.
    bridge = await startTestBridge(
      { RUNBRIDGE_MAX_CONCURRENT_RUNS: '1', RUNBRIDGE_MAX_QUEUED_RUNS: '4' },
      { providers: [scriptedProvider({ held: [{ gate: gate.promise, text: 'done' }] })] },
    );
    rig = await startRolloutRig();
    await bridge.startRun({ model: 'scripted:held' });
  });
  afterAll(async () => {
    gate.resolve(undefined);
    await bridge?.shutdown();
    await rig?.close();
  });

  it('answers the batch it names, not 429, and a rerun of `rollout --server` resumes it', async () => {
    const file = rig.path('queued.jsonl');
    const args = ['--server', bridge.url, '--env', 'arith', '--tasks', '0:4', '--model', 'offline', '--out', file];
    let stop!: (signal: NodeJS.Signals) => void;
    const first = testIo();
    first.io.onStop = (listener) => {
      stop = listener;
      return () => undefined;
    };
    const interrupted = runRolloutCommand(args, first.io);
    const [queued] = await eventually(async () => {
      const { data } = (await (await bridge.fetch('/v1/rollouts')).json()) as { data: Array<{ rollout_id: string }> };
      return data.length > 0 && data;
    }, 'the batch on the bridge');
    stop('SIGINT');
    expect(await interrupted).not.toBe(0);
    expect(first.err() + first.out()).toMatch(/the same command resumes it/);

    // The batch fills the queue: a new one is refused, the same one is answered.
    const { status, answer } = await postRollout(bridge.fetch, {
      env: 'arith',
      tasks: '0:4',
      samples: 1,
      model: 'offline',
    });
    expect(status).toBe(429);
    expect(answer).toMatchObject({ error: { code: 'queue_full' } });

    const again = testIo();
    let ended = false;
    const resumed = runRolloutCommand(args, again.io).finally(() => (ended = true));
    // The rerun's POST is answered while the queue is still full: it reads the batch, its manifest says so.
    await eventually(
      () => ended || readManifestFile(manifestPathFor(file)).status === 'running',
      'the rerun reading the batch',
    );
    gate.resolve(undefined);
    expect(await resumed).toBe(0);
    expect(again.out()).toMatch(/wrote 4 record\(s\)/);
    expect(keysOf(readRecords(file))).toHaveLength(4);
    const { data } = (await (await bridge.fetch('/v1/rollouts')).json()) as { data: Array<{ rollout_id: string }> };
    expect(data.map((batch) => batch.rollout_id)).toEqual([queued!.rollout_id]);
  });
});
