import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createWorkspaceEnvironment } from '../../adapters/environments/workspace/workspace-environment.js';
import { createOrsServer } from '../../src/ors/server/create-ors-server.js';
import { eventually } from '../support/eventually.js';
import { startTestRedis } from '../support/redis-server.js';
import { spawnRunbridge } from '../support/spawn-runbridge.js';

/** `runbridge serve ARGS` on a free loopback port, with the built-in ORS server and no keys, and `env` on top. */
function serve(env: Record<string, string>, args: string[] = []) {
  return spawnRunbridge(['serve', ...args], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ORS_URL: '', RUNBRIDGE_API_KEYS: '', ...env },
  });
}

/** Starts `runbridge serve` with `env` and resolves to what it printed up to its banner's last line; then stops it. */
async function banner(env: Record<string, string>): Promise<string> {
  const child = serve(env);
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  try {
    await eventually(
      () => {
        if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}:\n${stdout}`);
        return stdout.includes('curl -N');
      },
      'the banner',
      { intervalMs: 50 },
    );
    return stdout;
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}

/**
 * Starts `runbridge serve` with `env` and resolves to its exit code and what it wrote to stderr once it
 * exits. A serve that never exits is killed after 20 s, so a failing test ends instead of hanging the suite.
 */
async function exitOf(
  env: Record<string, string>,
  args: string[] = [],
): Promise<{ code: number | null; stderr: string }> {
  const child = serve(env, args);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(killer);
  return { code, stderr };
}

describe('runbridge serve as a process', () => {
  it("suggests a run of the default environment it chose (the ORS server's first without arith) and says where runs are kept", async () => {
    const ors = createOrsServer({ environments: [createWorkspaceEnvironment()] });
    const url = await ors.listen(0, '127.0.0.1');
    try {
      const text = await banner({ ORS_URL: url });
      expect(text).toContain('default environment: workspace');
      expect(text).toContain(`-d '{"env":"workspace"}'`);
      expect(text).toContain('runs kept: in this process (memory)');
    } finally {
      await ors.close();
    }
  }, 30_000);

  it('says at once that it waits for Redis, and where, without the password', async () => {
    const redis = await startTestRedis();
    try {
      const text = await banner({
        RUNBRIDGE_REDIS_URL: redis.url.replace('redis://', 'redis://:hunter2@'),
        RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
      });
      expect(text.split('\n')[0]).toBe(`runbridge: connecting to Redis at redis://:***@127.0.0.1:${redis.port}…`);
      expect(text).toContain(`runs kept: in Redis at redis://:***@127.0.0.1:${redis.port}`);
      expect(text).not.toContain('hunter2');
    } finally {
      await redis.stop();
    }
  }, 30_000);

  it('exits 1 with the reason when its port is taken, instead of hanging on the built-in ORS server', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    try {
      const { code, stderr } = await exitOf({ PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr).toContain(
        `PORT=${port}: 127.0.0.1:${port} is already in use (EADDRINUSE); set PORT to another port (runbridge serve --port N)`,
      );
    } finally {
      taken.close();
    }
  }, 30_000);

  it('exits 1 naming RUNBRIDGE_DEFAULT_ENV when the ORS server does not have it, instead of serving 404s', async () => {
    const { code, stderr } = await exitOf({ RUNBRIDGE_DEFAULT_ENV: 'nope' });
    expect(code).toBe(1);
    expect(stderr).toContain('RUNBRIDGE_DEFAULT_ENV=nope');
    expect(stderr).toContain('Available: arith, workspace');
  }, 30_000);

  it('exits 1 before serving when --workers is above 1 without Redis, saying the memory store cannot be shared', async () => {
    const { code, stderr } = await exitOf({ RUNBRIDGE_REDIS_URL: '' }, ['--workers', '2']);
    expect(code).toBe(1);
    expect(stderr).toContain('RUNBRIDGE_WORKERS=2 (--workers) needs RUNBRIDGE_REDIS_URL');
    expect(stderr).toContain("runs kept in one process's memory cannot be seen by the other workers");
  }, 30_000);
});
