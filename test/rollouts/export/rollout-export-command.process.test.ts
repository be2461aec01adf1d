import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runRolloutExportCommand } from '../../../src/commands/rollout-export-command.js';
import type { TrajectoryRecord } from '../../../src/rollouts/trajectory-schema.js';
import { spawnRunbridge } from '../../support/spawn-runbridge.js';
import { sampleRecord } from '../sample-record.js';
import { exportTestIo } from './export-test-io.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('runbridge rollout export', () => {
  let dir: string;
  let a: string;
  let b: string;

  const jsonl = (records: TrajectoryRecord[]) => records.map((record) => `${JSON.stringify(record)}\n`).join('');
  const run = async (args: string[], stop?: NodeJS.Signals) => {
    const { io, out, err } = exportTestIo(stop);
    const code = await runRolloutExportCommand(args, io);
    return { code, out: out(), err: err() };
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'export-cli-'));
    a = join(dir, 'a.jsonl');
    b = join(dir, 'b.jsonl');
    writeFileSync(a, jsonl([sampleRecord(0, 0), sampleRecord(0, 1, { reward: 0 })]));
    writeFileSync(b, jsonl([sampleRecord(1, 0)]));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints its help and exits 0', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('runbridge rollout export IN.jsonl [IN2.jsonl …] --format FORMAT --out PATH');
  });

  it('writes the export, says what it wrote on stdout and exits 0', async () => {
    const out = join(dir, 'out', 'grpo.jsonl');
    const result = await run([a, b, '--format', 'grpo', '--out', out]);
    expect(result).toEqual({
      code: 0,
      err: '',
      out:
        `wrote 3 row(s) in 2 group(s) from 3 record(s) in 2 file(s), format grpo: ${out}\n` +
        'token data: 0 ok, 0 mismatch, 0 incomplete, 3 without token ids\n',
    });
    expect(readFileSync(out, 'utf8').trimEnd().split('\n')).toHaveLength(3);
    // Only the export itself is left: no temporary file beside it.
    expect(readdirSync(join(dir, 'out'))).toEqual(['grpo.jsonl']);
  });

  it.each([
    [['--out', 'x.jsonl', 'a.jsonl'], '--format is required: one of openai-chat, verifiers, grpo'],
    [
      ['--format', 'csv', '--out', 'x.jsonl', 'a.jsonl'],
      '--format must be one of openai-chat, verifiers, grpo; got "csv"',
    ],
    [['--format', 'grpo', 'a.jsonl'], '--out is required'],
    [
      ['--format', 'grpo', '--out', 'x.jsonl', '--status', 'done', 'a.jsonl'],
      '--status must be completed or failed; got "done"',
    ],
    [
      ['--format', 'grpo', '--out', 'x.jsonl', '--min-group-variance=-1', 'a.jsonl'],
      '--min-group-variance must be 0 or more',
    ],
    [
      ['--format', 'grpo', '--out', 'x.jsonl', '--min-group-variance', 'some', 'a.jsonl'],
      '--min-group-variance must be a number',
    ],
    [['--format', 'grpo', '--out', 'x.jsonl', '--samples', '3', 'a.jsonl'], "Unknown option '--samples'"],
    [['--format', 'grpo', '--out', 'x.jsonl'], 'Name at least one rollout file to export'],
  ])('refuses bad options %j with exit 2 and says what to do', async (args, message) => {
    const { code, err } = await run(args);
    expect(code).toBe(2);
    expect(err).toContain(message);
    expect(err).toContain('Run "runbridge rollout export --help" for the options.');
  });

  it('exits 2 for inputs named wrong — missing, given twice, or the output itself — and changes no file', async () => {
    const before = readFileSync(a, 'utf8');
    const missing = await run([join(dir, 'nope.jsonl'), '--format', 'grpo', '--out', join(dir, 'x.jsonl')]);
    expect(missing).toMatchObject({ code: 2, err: expect.stringContaining('nope.jsonl does not exist') });
    const twice = await run([a, join(dir, '.', 'a.jsonl'), '--format', 'grpo', '--out', join(dir, 'x.jsonl')]);
    expect(twice).toMatchObject({ code: 2, err: expect.stringContaining('is given twice') });
    const overwrite = await run([a, '--format', 'openai-chat', '--out', a]);
    expect(overwrite).toMatchObject({ code: 2, err: expect.stringContaining('--out would overwrite the input') });
    writeFileSync(join(dir, 'results.jsonl'), readFileSync(a));
    const intoInputs = await run([join(dir, 'results.jsonl'), '--format', 'verifiers', '--out', dir]);
    expect(intoInputs).toMatchObject({ code: 2, err: expect.stringContaining('--out would overwrite the input') });
    expect(readFileSync(a, 'utf8')).toBe(before);
    expect(existsSync(join(dir, 'x.jsonl'))).toBe(false);
  });

  it('exits 2 when --out is a file where a directory belongs, or the other way round', async () => {
    expect(await run([a, '--format', 'verifiers', '--out', b])).toMatchObject({
      code: 2,
      err: expect.stringContaining('a verifiers export is a directory'),
    });
    expect(await run([a, '--format', 'grpo', '--out', dir])).toMatchObject({
      code: 2,
      err: expect.stringContaining('a grpo export is one JSONL file'),
    });
  });

  it('exits 3 for a damaged line, naming it, and writes nothing', async () => {
    writeFileSync(b, `${JSON.stringify(sampleRecord(1, 0))}\nnot json\n${JSON.stringify(sampleRecord(2, 0))}\n`);
    const out = join(dir, 'x.jsonl');
    const { code, err } = await run([a, b, '--format', 'openai-chat', '--out', out]);
    expect(code).toBe(3);
    expect(err).toContain(`${b} line 2: it is not JSON`);
    expect(existsSync(out)).toBe(false);
  });

  it('exits 3 for overlapping inputs, and for mixed models only where token data and advantages need one', async () => {
    writeFileSync(b, jsonl([sampleRecord(0, 1)]));
    expect(await run([a, b, '--format', 'openai-chat', '--out', join(dir, 'x.jsonl')])).toMatchObject({
      code: 3,
      err: expect.stringContaining('Sample 1 of arith/train/0 is in'),
    });
    writeFileSync(b, jsonl([sampleRecord(1, 0, { model: 'openai:gpt-4.1-mini' })]));
    for (const format of ['grpo', 'verifiers']) {
      expect(await run([a, b, '--format', format, '--out', join(dir, `mixed-${format}`)])).toMatchObject({
        code: 3,
        err: expect.stringContaining('The inputs mix models'),
      });
    }
    expect(await run([a, b, '--format', 'openai-chat', '--out', join(dir, 'mixed.jsonl')])).toMatchObject({ code: 0 });
  });

  it('exits 3 when the export cannot be written', async () => {
    const { code, err } = await run([a, '--format', 'grpo', '--out', join(b, 'under-a-file.jsonl')]);
    expect(code).toBe(3);
    expect(err).toContain('Could not write');
  });

  it('exits 130 / 143 when interrupted before writing, and writes nothing', async () => {
    const out = join(dir, 'x.jsonl');
    const { code, err } = await run([a, '--format', 'grpo', '--out', out], 'SIGTERM');
    expect(code).toBe(143);
    expect(err).toContain('SIGTERM: stopped before writing; nothing was written.');
    expect(existsSync(out)).toBe(false);
    expect((await run([a, '--format', 'grpo', '--out', out], 'SIGINT')).code).toBe(130);
  });

  it('skips an unfinished last line with a warning and exports the rest', async () => {
    writeFileSync(b, `${JSON.stringify(sampleRecord(1, 0))}\n{"schema_version":1,"rollout_id":"ro_cut`);
    const { code, out, err } = await run([a, b, '--format', 'openai-chat', '--out', join(dir, 'x.jsonl')]);
    expect(code).toBe(0);
    expect(err).toContain(`warning: ${b}: skipped line 2, an unfinished record`);
    expect(out).toContain('wrote 3 row(s)');
  });

  it('writes an empty export, and says so, when no record passes the filters', async () => {
    const out = join(dir, 'x.jsonl');
    const result = await run([a, b, '--format', 'grpo', '--out', out, '--status', 'failed']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('left out 3 record(s) by --status');
    expect(result.out).toContain('no record passed the filters: the export is empty');
    expect(readFileSync(out, 'utf8')).toBe('');
  });

  it('says what to do when --min-group-variance leaves every group out: samples played alike', async () => {
    const alike = join(dir, 'alike.jsonl');
    writeFileSync(alike, jsonl([sampleRecord(0, 0), sampleRecord(0, 1)]));
    const result = await run([alike, '--format', 'grpo', '--out', join(dir, 'x.jsonl'), '--min-group-variance', '0']);
    expect(result.code).toBe(0);
    expect(result.out).toContain('left out 1 group(s) (2 record(s)) by --min-group-variance');
    expect(result.out).toContain('no record passed the filters: the export is empty');
    expect(result.out).toContain("every group's samples scored the same: play them at a temperature above 0");
  });

  it('writes every message content as a list of parts when any exported message holds an image', async () => {
    const image = sampleRecord(1, 0, {
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] }],
    });
    writeFileSync(b, jsonl([image]));
    const out = join(dir, 'x.jsonl');
    expect((await run([a, b, '--format', 'openai-chat', '--out', out])).code).toBe(0);
    const contents = readFileSync(out, 'utf8')
      .trimEnd()
      .split('\n')
      .flatMap((line) =>
        (JSON.parse(line) as { messages: Array<{ content: unknown }> }).messages.map((m) => m.content),
      );
    expect(contents).toEqual([
      [{ type: 'text', text: 'How many?' }],
      [{ type: 'text', text: 'How many?' }],
      [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }],
    ]);
  });

  it('is reached as `runbridge rollout export` from the command line, with the same exit codes', async () => {
    const cli = (args: string[]) =>
      new Promise<{ code: number; stderr: string }>((resolve) => {
        const child = spawnRunbridge(['rollout', 'export', ...args], { cwd: ROOT });
        let stderr = '';
        child.stdout.resume();
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        child.once('close', (code) => resolve({ code: code ?? -1, stderr }));
      });
    const out = join(dir, 'vf');
    mkdirSync(out);
    expect(await cli([a, b, '--format', 'verifiers', '--out', out])).toEqual({ code: 0, stderr: '' });
    expect(readdirSync(out).sort()).toEqual(['metadata.json', 'results.jsonl']);
    expect(await cli([a, '--format', 'parquet', '--out', out])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--format must be one of'),
    });
  }, 60_000);
});
