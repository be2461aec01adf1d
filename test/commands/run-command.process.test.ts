import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { runbridgeArgv, spawnRunbridge } from '../support/spawn-runbridge.js';
import { startTestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment, deferred } from '../support/test-environment.js';
import { unusedPort } from '../support/unused-port.js';

const LOADED_PACKAGES_HOOK = fileURLToPath(new URL('../support/loaded-packages/register.mjs', import.meta.url));

/** `runbridge run ARGS` as a process, from the sources; resolves to its exit code and output, whatever the code. */
async function runbridgeRun(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, runbridgeArgv(['run', ...args]), {
      env: {
        ...process.env,
        ORS_URL: '',
        RUNBRIDGE_API_KEYS: '',
        RUNBRIDGE_MODEL: 'offline',
        RUNBRIDGE_LOG_LEVEL: 'info',
        ...env,
      },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('runbridge run as a process', () => {
  it('plays --index alone from the first split, as the API does', async () => {
    const { code, stdout } = await runbridgeRun(['--env', 'arith', '--index', '2', '--json']);
    expect(code).toBe(0);
    const events: RunEvent[] = stdout
      .trim()
      .split('\n')
      .map((line) => RunEventSchema.parse(JSON.parse(line)));
    expect(events[0]).toMatchObject({ event: 'run.started', task: { split: 'train', index: 2 } });
    expect(events.at(-1)?.event).toBe('run.completed');
  }, 60_000);

  it('says where it looked, why and what to do when --server cannot be reached, not just "fetch failed"', async () => {
    const port = await unusedPort();
    const refused = await runbridgeRun(['--server', `http://127.0.0.1:${port}`]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`cannot reach the bridge at http://127.0.0.1:${port} (failed: ECONNREFUSED`);
    expect(refused.stderr).toContain('runbridge serve');
    // Port 1 is one fetch refuses to dial at all; the reason says so.
    const blocked = await runbridgeRun(['--server', 'http://127.0.0.1:1']);
    expect(blocked.code).toBe(1);
    expect(blocked.stderr).toContain('cannot reach the bridge at http://127.0.0.1:1 (failed: fetch failed: bad port)');
  }, 60_000);

  it('says in one line that the ORS server did not answer, and shows the whole error only with --verbose', async () => {
    const port = await unusedPort();
    const missing = await runbridgeRun([], { ORS_URL: `http://127.0.0.1:${port}` });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      `runbridge run: the ORS server at http://127.0.0.1:${port} did not answer (ECONNREFUSED, 5 attempts); is it running?\n`,
    );
    const verbose = await runbridgeRun(['--verbose'], { ORS_URL: `http://127.0.0.1:${port}` });
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/\n\s+at /);
    expect(verbose.stderr.trim().split('\n').at(-1)).toContain('is it running?');
  }, 60_000);

  it('loads no server with --server: no Koa, ioredis, pino, prom-client or OpenTelemetry in the process', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'runbridge-loaded-'));
    try {
      const log = join(dir, 'loaded.txt');
      const port = await unusedPort();
      const refused = await runbridgeRun(['--server', `http://127.0.0.1:${port}`], {
        RUNBRIDGE_TEST_LOADED_LOG: log,
        NODE_OPTIONS: `--import ${pathToFileURL(LOADED_PACKAGES_HOOK).href}`,
      });
      expect(refused.stderr).toContain(`cannot reach the bridge at http://127.0.0.1:${port}`);
      const packages = new Set(
        (await readFile(log, 'utf8')).split('\n').map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]),
      );
      expect(packages).toContain('zod');
      const server = [...packages].filter((name) =>
        /^(koa|koa-router|@koa\/.*|ioredis|pino|pino-pretty|prom-client|@opentelemetry\/.*)$/.test(name ?? ''),
      );
      expect(server).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('asks for --api-key or RUNBRIDGE_API_KEY, in its own terms, when the bridge at --server wants a key', async () => {
    const keyed = await startTestBridge({ RUNBRIDGE_API_KEYS: 'a-key-of-sixteen-chars' });
    try {
      const refused = await runbridgeRun(['--server', keyed.url]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `runbridge run: the bridge at ${keyed.url} wants an API key: pass --api-key KEY, or set RUNBRIDGE_API_KEY.\n`,
      );
    } finally {
      await keyed.shutdown();
    }
  }, 60_000);

  it('ends quietly with exit 0 when its stdout closes (| head -2), and cancels the run no one reads', async () => {
    const gate = deferred();
    const bridge = await startTestBridge(
      { RUNBRIDGE_DEFAULT_ENV: 'hitl' },
      {
        environments: [createTestEnvironment('hitl').environment],
        providers: [
          scriptedProvider({
            // Streams only once the reader has gone, then never ends by itself.
            unread: [
              {
                gate: gate.promise,
                text: 'Here is a lot to say. '.repeat(20),
                toolCalls: [{ name: 'noop', arguments: '{}' }],
              },
              { hang: true },
            ],
          }),
        ],
      },
    );
    try {
      const child = spawnRunbridge(['run', '--server', bridge.url, '--model', 'scripted:unread', '--json'], {
        env: { ...process.env, RUNBRIDGE_API_KEYS: '', RUNBRIDGE_API_KEY: '' },
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      const exited = once(child, 'exit') as Promise<[number | null]>;
      let read = '';
      for await (const chunk of child.stdout.setEncoding('utf8')) {
        read += chunk;
        if (read.includes('\n')) break; // like head: the first line, then the pipe is closed
      }
      child.stdout.destroy();
      const runId = RunEventSchema.parse(JSON.parse(read.split('\n')[0]!)).run_id;
      gate.resolve();
      const [code] = await exited;
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect((await bridge.readEvents(runId)).at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'client' });
    } finally {
      await bridge.shutdown();
    }
  }, 60_000);
});

/** A loopback port nothing listens on. */
