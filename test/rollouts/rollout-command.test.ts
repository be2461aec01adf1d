import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import { type RolloutCommandIo, runRolloutCommand } from '../../src/commands/rollout-command.js';
import type { Model, ModelProvider } from '../../src/models/model.js';
import { RolloutLock } from '../../src/rollouts/rollout-lock.js';
import { manifestPathFor } from '../../src/rollouts/rollout-manifest.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { misbehavingModel, offlineModel, readManifestFile, readRecords, useRolloutRig } from './rollout-rig.js';

/** An io that records what the command writes; `stop` plays the role of SIGINT/SIGTERM. */
function testIo(providers: ModelProvider[] = [createOfflineProvider({ tokenDelayMs: 0 })]) {
  const out: string[] = [];
  const err: string[] = [];
  let listener: ((signal: NodeJS.Signals) => void) | undefined;
  const io: RolloutCommandIo = {
    env: { ORS_URL: '', RUNBRIDGE_MODEL: 'offline' },
    stdout: { write: (text: string) => out.push(text), isTTY: false },
    stderr: (text) => err.push(text),
    onStop: (stop) => {
      listener = stop;
      return () => {
        listener = undefined;
      };
    },
    providers,
  };
  return {
    io,
    out: () => out.join(''),
    err: () => err.join(''),
    stop: (signal: NodeJS.Signals) => listener?.(signal),
    listening: () => listener !== undefined,
  };
}

/** A provider named `offline` whose one model is `model` (so its files resume with the real offline model). */
function providerOf(model: Model): ModelProvider {
  return { name: 'offline', listedModels: [], defaultModel: '', create: () => model };
}

describe('runbridge rollout', () => {
  const rig = useRolloutRig();

  it('writes the records and the manifest, prints plain progress and a summary, and exits 0', async () => {
    const { io, out, err, listening } = testIo();
    const file = rig.path('cli.jsonl');
    const code = await runRolloutCommand(
      [
        '--env',
        'arith',
        '--split',
        'test',
        '--tasks',
        '0:4',
        '--samples',
        '2',
        '--model',
        'offline',
        '--concurrency',
        '3',
        '--out',
        file,
      ],
      io,
    );
    expect(err()).toBe('');
    expect(code).toBe(0);
    expect(readRecords(file)).toHaveLength(8);
    expect(readManifestFile(manifestPathFor(file)).config).toMatchObject({
      env: 'arith',
      split: 'test',
      tasks: '0:4',
      samples: 2,
      concurrency: 3,
      // Several samples and no --temperature: sampled at 1, so a task's samples can differ.
      sampling: { temperature: 1 },
    });
    expect(out()).toContain('rollouts: 8/8 done (8 completed, 0 failed, 0 skipped), 0 running');
    expect(out()).toContain(`wrote 8 record(s) to ${file}`);
    expect(out()).toContain(`manifest: ${manifestPathFor(file)}`);
    expect(listening()).toBe(false);
  });

  it('exits 3 with the reason when the batch cannot run at all, e.g. another batch holds the file', async () => {
    const file = rig.path('cli-locked.jsonl');
    const lock = RolloutLock.acquire(file);
    try {
      const { io, err } = testIo();
      expect(await runRolloutCommand(['--tasks', '0:2', '--out', file], io)).toBe(3);
      expect(err()).toContain('runbridge rollout: the batch could not run: Another rollout batch');
      expect(existsSync(file)).toBe(false);
    } finally {
      lock.release();
    }
  });

  it('exits 1 and points at --retry-failed when episodes failed, then 0 once they ran again', async () => {
    const file = rig.path('cli-failed.jsonl');
    const [doomed] = planRollouts({ env: 'arith', split: 'train', indices: [0], samples: 1, masterSeed: 0 });
    const failing = misbehavingModel(offlineModel(), (request) =>
      request.sampling.seed === doomed!.seed ? 'fail' : 'play',
    );
    const args = ['--tasks', '0:3', '--retries', '0', '--out', file];
    const first = testIo([providerOf(failing)]);
    expect(await runRolloutCommand(args, first.io)).toBe(1);
    expect(first.out()).toContain('1 of 3 pair(s) failed; rerun with --retry-failed to run them again');

    const second = testIo();
    expect(await runRolloutCommand([...args, '--retry-failed'], second.io)).toBe(0);
    expect(second.out()).toContain('removed 1 failed record(s) to run them again (--retry-failed)');
    expect(readRecords(file).map((record) => record.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('on SIGTERM cancels the episodes in flight, deletes their sessions, says how far it got and exits 143', async () => {
    const file = rig.path('cli-stopped.jsonl');
    const plan = planRollouts({
      env: 'arith',
      split: 'train',
      indices: [...Array(6).keys()],
      samples: 2,
      masterSeed: 0,
    });
    const hangs = new Set(plan.filter((rollout) => rollout.sample === 1).map((rollout) => rollout.seed));
    const session = testIo();
    let hung = 0;
    const model = misbehavingModel(offlineModel(), (request) => {
      if (!hangs.has(request.sampling.seed!)) return 'play';
      if (++hung === 2) queueMicrotask(() => session.stop('SIGTERM'));
      return 'hang';
    });
    session.io.providers = [providerOf(model)];
    const code = await runRolloutCommand(
      ['--tasks', '0:6', '--samples', '2', '--concurrency', '4', '--out', file],
      session.io,
    );
    expect(code).toBe(143);
    expect(session.err()).toContain('SIGTERM: cancelling the episodes in flight and closing their sessions');
    expect(session.out()).toMatch(
      /interrupted by SIGTERM: \d+ of 12 pair\(s\) recorded, [2-4] episode\(s\) in flight cancelled; rerun the same command to resume/,
    );
    expect(readManifestFile(manifestPathFor(file)).status).toBe('interrupted');
    expect(readRecords(file).every((record) => record.sample_index === 0)).toBe(true);
  });

  it('exits 2 with a clear message for bad options, before writing anything', async () => {
    const file = rig.path('never.jsonl');
    const cases: Array<[string[], RegExp]> = [
      [['--bogus', '--out', file], /unknown option --bogus \(--help lists the options\)/],
      [['--sample', '2', '--out', file], /unknown option --sample; did you mean --samples\?/],
      [['--concurency', '2', '--out', file], /unknown option --concurency; did you mean --concurrency\?/],
      [['--model', 'gpt-4o', '--out', file], /Did you mean "openai:gpt-4o" \(set OPENAI_API_KEY/],
      [['--model', 'anthropic:claude-x', '--out', file], /"anthropic" is not configured: set ANTHROPIC_API_KEY/],
      [['--tasks', '0:4'], /--out is required: say where to write the records/],
      [['--samples', '0', '--out', file], /--samples Too small/i],
      [['--concurrency', 'many', '--out', file], /--concurrency /],
      [['--extra-body', '[1, 2]', '--out', file], /--extra-body must be a JSON object/],
      [['--reward-reduction', 'median', '--out', file], /--reward-reduction /],
      [['--ors-url', 'ftp://example', '--out', file], /--ors-url /],
      [['--model', 'nope:x', '--out', file], /Unknown model provider "nope"/],
      [['--env', 'nowhere', '--out', file], /Unknown environment "nowhere"/],
      [['--tasks', '5:1', '--out', file], /The task range "5:1" is empty/],
      [['--tasks', '0:5000', '--out', file], /out of range: the split has 1000 tasks/],
      [['positional', '--out', file], /Unexpected argument 'positional'/],
    ];
    for (const [args, message] of cases) {
      const { io, err } = testIo();
      expect(await runRolloutCommand(args, io), args.join(' ')).toBe(2);
      expect(err(), args.join(' ')).toMatch(message);
      expect(err()).toContain('Run "runbridge rollout --help" for the options.');
    }
    expect(existsSync(file)).toBe(false);
  });

  it('prints its usage for --help and exits 0', async () => {
    const { io, out } = testIo();
    expect(await runRolloutCommand(['--help'], io)).toBe(0);
    expect(out()).toMatch(/^runbridge rollout — /);
    for (const flag of [
      '--env',
      '--split',
      '--tasks',
      '--samples',
      '--model',
      '--concurrency',
      '--out',
      '--max-turns',
      '--temperature',
      '--seed',
      '--extra-body',
      '--reward-reduction',
      '--retries',
      '--timeout-seconds',
      '--retry-failed',
      '--ors-url',
    ]) {
      expect(out()).toContain(`  ${flag} `);
    }
  });
});
