import { readFile } from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_ORS_PORT, type OrsCommandIo, orsCommand, runOrsCommand } from '../../src/commands/ors-command.js';
import { loadConfig } from '../../src/config/index.js';
import { send } from '../ors/server/ors-test-client.js';
import { spawnRunbridge } from '../support/spawn-runbridge.js';
import { createTestEnvironment, deferred } from '../support/test-environment.js';

/** An io that records output, serves the test environment, and stops when the test says so. */
function testIo() {
  const { environment, probe } = createTestEnvironment();
  const out: string[] = [];
  const err: string[] = [];
  const stop = deferred<string>();
  const listening = deferred<string>();
  const io: OrsCommandIo = {
    environments: [environment],
    stdout: (text) => {
      out.push(text);
      const url = /listening on (\S+)/.exec(text)?.[1];
      if (url) listening.resolve(url);
    },
    stderr: (text) => err.push(text),
    waitForStop: () => stop.promise,
  };
  return { io, probe, out, err, stop, listening };
}

describe('runbridge ors', () => {
  it('serves the environments, prints its URL, and on stop closes every session and exits 0', async () => {
    const { io, probe, out, stop, listening } = testIo();
    const exit = runOrsCommand(['serve', '--port', '0', '--host', '127.0.0.1', '--ping-seconds', '0.5'], io);
    const base = await listening.promise;
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await send(base, '/list_environments')).json()).toEqual(['testenv']);
    await send(base, '/create', {
      method: 'POST',
      headers: { 'X-Session-ID': 'cli' },
      body: { split: 'train', index: 0 },
    });
    await send(base, '/testenv/prompt', { headers: { 'X-Session-ID': 'cli' } });
    stop.resolve('SIGTERM');
    expect(await exit).toBe(0);
    expect(probe.teardowns).toEqual(['cli']);
    expect(out.join('')).toContain('environments: testenv\n');
    expect(out.join('')).toContain('SIGTERM: closing 1 session(s)\nORS server stopped\n');
    await expect(send(base, '/health')).rejects.toThrow();
  });

  it('exits 2 with the problem and the usage for a bad flag, a bad value or a missing sub-command', async () => {
    for (const args of [
      ['serve', '--bogus'],
      ['serve', '--port', 'eighty'],
      ['serve', '--port', '70000'],
      ['serve', '--ping-seconds', '0'],
      [],
      ['start'],
      ['serve', 'now'],
    ]) {
      const { io, err } = testIo();
      expect(await runOrsCommand(args, io), args.join(' ')).toBe(2);
      expect(err.join('')).toMatch(/^runbridge ors: .+\n\nrunbridge ors serve — /);
    }
    const written = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await orsCommand(['serve', '--bogus'])).toBe(2);
      expect(String(written.mock.calls[0]?.[0])).toMatch(/^runbridge ors: unknown option --bogus /);
    } finally {
      written.mockRestore();
    }
  });

  it("defaults to a port of its own: not runbridge serve's, nor the browser example's", async () => {
    const browserExample = await readFile(new URL('../../examples/browser/serve.mjs', import.meta.url), 'utf8');
    const browserPort = Number(/process\.env\.PORT \?\? (\d+)/.exec(browserExample)?.[1]);
    expect(browserPort).toBeGreaterThan(0);
    expect([loadConfig({}).port, browserPort]).not.toContain(DEFAULT_ORS_PORT);
    const { io, out } = testIo();
    await runOrsCommand(['--help'], io);
    expect(out.join('')).toContain(`(default ${DEFAULT_ORS_PORT}; runbridge serve has ${loadConfig({}).port})`);
  });

  it('passes --max-sessions and --max-session-bytes to the server', async () => {
    const { io, stop, listening } = testIo();
    const exit = runOrsCommand(['serve', '--port', '0', '--max-sessions', '1', '--max-session-bytes', '5000'], io);
    const base = await listening.promise;
    const create = (sid: string) =>
      send(base, '/create', { method: 'POST', headers: { 'X-Session-ID': sid }, body: { split: 'train', index: 0 } });
    expect((await create('one')).status).toBe(200);
    expect((await create('two')).status).toBe(429);
    const big = await send(base, '/testenv/call', {
      method: 'POST',
      headers: { 'X-Session-ID': 'one' },
      body: { name: 'echo', input: { text: 'x'.repeat(6000) } },
    });
    expect(big.status).toBe(413);
    stop.resolve('SIGTERM');
    expect(await exit).toBe(0);
  });

  it('prints the usage and exits 0 for --help', async () => {
    const { io, out } = testIo();
    expect(await runOrsCommand(['--help'], io)).toBe(0);
    expect(out.join('')).toContain('runbridge ors serve [--port N] [--host H] [--ping-seconds S]');
  });

  it('as a process, serves the built-in environments and stops cleanly on SIGTERM', async () => {
    const child = spawnRunbridge(['ors', 'serve', '--port', '0']);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let stdout = '';
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const url = /listening on (\S+)/.exec(stdout)?.[1];
        if (url) resolve(url);
      });
      void exited.then((code) => reject(new Error(`exited ${code} before listening: ${stderr}`)));
    });
    try {
      expect((await send(base, '/list_environments')).json()).toContain('arith');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stdout).toContain('SIGTERM: closing 0 session(s)\nORS server stopped\n');
  });
});
