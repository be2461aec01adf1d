import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { FROM_SOURCES, runbridgeArgv } from '../support/spawn-runbridge.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/ors/backwards.ts', import.meta.url));
const DOC = fileURLToPath(new URL('../../docs/ors.md', import.meta.url));

/**
 * The environment docs/ors.md shows a reader how to write (examples/ors/backwards.ts), served as the
 * reader serves it and played as the reader plays it — `runbridge run` with the offline model, no key.
 */
describe('the ORS environment example', () => {
  it('is the code docs/ors.md shows', async () => {
    const doc = await readFile(DOC, 'utf8');
    expect(doc).toContain(`\`\`\`ts\n${await readFile(EXAMPLE, 'utf8')}\`\`\``);
  });

  it('is played to a reward by runbridge run with the offline model', { timeout: 60_000 }, async () => {
    const server = spawn(process.execPath, [...FROM_SOURCES.execArgv, EXAMPLE], {
      env: { ...process.env, ...FROM_SOURCES.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [firstLine] = (await once(server.stdout.setEncoding('utf8'), 'data')) as [string];
      const orsUrl = firstLine.trim();
      expect(orsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const { stdout } = await promisify(execFile)(
        process.execPath,
        runbridgeArgv(['run', '--env', 'backwards', '--json']),
        {
          env: {
            ...process.env,
            ORS_URL: orsUrl,
            RUNBRIDGE_MODEL: 'offline',
            RUNBRIDGE_API_KEYS: '',
          },
          timeout: 60_000,
        },
      );
      const events: RunEvent[] = stdout
        .trim()
        .split('\n')
        .map((line) => RunEventSchema.parse(JSON.parse(line)));
      expect(events.filter((event) => event.event === 'tool.started')).toEqual([
        expect.objectContaining({ tool: 'spell', arguments: { letters: 'bridge' } }),
      ]);
      expect(events.at(-1)).toMatchObject({
        event: 'run.completed',
        reward: 0,
        finished: true,
        stop_reason: 'finished',
      });
    } finally {
      server.kill();
      if (server.exitCode === null && server.signalCode === null) await once(server, 'exit');
    }
  });
});
