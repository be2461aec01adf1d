import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { BENCH_ENV } from '../fakes/bench-environment.js';

/** A `runbridge serve` process of a benchmark. */
export interface ServeProcess {
  url: string;
  /** Stops it with SIGTERM and waits for it to exit. */
  stop(): Promise<void>;
}

const RUNBRIDGE = fileURLToPath(new URL('../../bin/runbridge.js', import.meta.url));

/**
 * Starts `runbridge serve` — the installed command, on the build `npm run bench` made — with the bench defaults of `startBenchBridge` (limits
 * that would turn load away raised) and `env` on top; resolves once it listens.
 */
export async function startServeProcess(env: Record<string, string>): Promise<ServeProcess> {
  const child = spawn(process.execPath, [RUNBRIDGE, 'serve'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      OPENAI_API_KEY: 'bench',
      RUNBRIDGE_DEFAULT_ENV: BENCH_ENV,
      RUNBRIDGE_MAX_CONCURRENT_RUNS: '4096',
      RUNBRIDGE_MAX_QUEUED_RUNS: '100000',
      RUNBRIDGE_MAX_STREAMS_PER_KEY: '10000',
      RUNBRIDGE_RETENTION_SECONDS: '5',
      ...env,
    },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /runbridge listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`runbridge serve exited with ${code}:\n${output}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
