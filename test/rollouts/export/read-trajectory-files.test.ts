import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTrajectoryFiles } from '../../../src/rollouts/export/read-trajectory-files.js';
import { sampleRecord } from '../sample-record.js';

describe('readTrajectoryFiles', () => {
  let dir: string;
  let warnings: string[];
  const warn = (message: string) => warnings.push(message);
  const line = (index: number, sample = 0) => JSON.stringify(sampleRecord(index, sample));

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'export-read-'));
    warnings = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('reads every record of every file in order, with its file and line, skipping blank lines', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    writeFileSync(a, `${line(0)}\n\n${line(1)}\n`);
    writeFileSync(b, `${line(2)}`);
    const read = await readTrajectoryFiles([a, b], warn);
    expect(read.map((item) => [item.file, item.line, item.record.task.index])).toEqual([
      [a, 1, 0],
      [a, 3, 1],
      [b, 1, 2],
    ]);
    expect(warnings).toEqual([]);
  });

  it('skips an unfinished last line with a warning and leaves the file as it was', async () => {
    const a = join(dir, 'a.jsonl');
    const text = `${line(0)}\n${line(1).slice(0, 40)}`;
    writeFileSync(a, text);
    const read = await readTrajectoryFiles([a], warn);
    expect(read).toHaveLength(1);
    expect(warnings).toEqual([expect.stringContaining(`${a}: skipped line 2, an unfinished record (40 bytes`)]);
    expect(readFileSync(a, 'utf8')).toBe(text);
  });

  it('refuses a damaged line that is not the unfinished last one, naming file and line', async () => {
    const a = join(dir, 'a.jsonl');
    writeFileSync(a, `${line(0)}\n{"schema_version": 1, "oops"\n${line(1)}\n`);
    await expect(readTrajectoryFiles([a], warn)).rejects.toMatchObject({
      code: 'rollout_file_invalid',
      message: expect.stringMatching(new RegExp(`^${a} line 2: it is not JSON`)),
    });
    writeFileSync(a, `${line(0)}\n{"schema_version": 1, "rollout_id": "x"}\n`);
    await expect(readTrajectoryFiles([a], warn)).rejects.toMatchObject({
      message: expect.stringContaining(`${a} line 2: it is not a trajectory record (`),
    });
  });

  it('says which schema version a record from another release has', async () => {
    const a = join(dir, 'a.jsonl');
    writeFileSync(a, `${JSON.stringify({ ...sampleRecord(0, 0), schema_version: 2 })}\n`);
    await expect(readTrajectoryFiles([a], warn)).rejects.toMatchObject({
      code: 'rollout_file_invalid',
      message: expect.stringContaining('has schema_version 2; this runbridge reads version 1'),
    });
  });

  it('names a missing file and a directory as the caller’s mistakes', async () => {
    await expect(readTrajectoryFiles([join(dir, 'nope.jsonl')], warn)).rejects.toMatchObject({
      code: 'export_input_missing',
      status: 404,
    });
    await expect(readTrajectoryFiles([dir], warn)).rejects.toMatchObject({
      code: 'export_input_directory',
      status: 400,
    });
  });
});
