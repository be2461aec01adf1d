import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FROM_SOURCES } from '../support/spawn-runbridge.js';
import { useRolloutRig } from './rollout-rig.js';

const SCRIPT = fileURLToPath(new URL('./rollout-loaded-packages.ts', import.meta.url));

describe('what runbridge rollout and its worker threads load', () => {
  const rig = useRolloutRig();

  it("plays a batch and sets up a worker thread's runtime without Koa, ioredis, prom-client, pino or OpenTelemetry's SDK", async () => {
    const report = rig.path('loaded.json');
    const args = [
      '--model',
      'offline',
      '--env',
      'arith',
      '--tasks',
      '0:2',
      '--workers',
      '1',
      '--out',
      rig.path('r.jsonl'),
    ];
    const child = spawn(process.execPath, [...FROM_SOURCES.execArgv, SCRIPT, report, ...args], {
      env: { ...process.env, ...FROM_SOURCES.env, ORS_URL: rig.url, RUNBRIDGE_MODEL: 'offline' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect({ exit, stderr }).toEqual({ exit: 0, stderr: '' });
    const { code, packages } = JSON.parse(readFileSync(report, 'utf8')) as { code: number; packages: string[] };
    expect(code).toBe(0);
    const server = packages.filter((name) =>
      /^(koa|koa-router|@koa\/cors|ioredis|prom-client|pino|pino-pretty|@opentelemetry\/(?!api$).*)$/.test(name),
    );
    expect(server).toEqual([]);
  });
});
