import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { spawnRunbridge } from '../support/spawn-runbridge.js';

describe('runbridge serve as a process', () => {
  it('exits 1 with the reason when its port is taken, instead of hanging on the built-in ORS server', async () => {
    const taken = createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const { port } = taken.address() as AddressInfo;
    try {
      const child = spawnRunbridge(['serve'], {
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', ORS_URL: '', RUNBRIDGE_API_KEYS: '' },
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
      // Without the fix the process never exits; the kill keeps a failing test from hanging the suite.
      const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const [code] = (await once(child, 'exit')) as [number | null];
      clearTimeout(killer);
      expect(code).toBe(1);
      expect(stderr).toContain('EADDRINUSE');
    } finally {
      taken.close();
    }
  }, 30_000);

  it('exits 1 naming RUNBRIDGE_DEFAULT_ENV when the ORS server does not have it, instead of serving 404s', async () => {
    const child = spawnRunbridge(['serve'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        ORS_URL: '',
        RUNBRIDGE_API_KEYS: '',
        RUNBRIDGE_DEFAULT_ENV: 'nope',
      },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(killer);
    expect(code).toBe(1);
    expect(stderr).toContain('RUNBRIDGE_DEFAULT_ENV=nope');
    expect(stderr).toContain('Available: arith, workspace');
  }, 30_000);
});
