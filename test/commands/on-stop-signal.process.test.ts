import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

// A command whose graceful stop never ends, so only the second signal can end the process.
const SCRIPT = `
const { onStopSignal } = await import('./src/commands/on-stop-signal.ts');
setInterval(() => undefined, 1000);
onStopSignal((signal) => console.log('stopping ' + signal));
console.log('ready');
`;

describe('onStopSignal in a process', () => {
  it('hands the first signal to the command, and exits at once on a second one with 128 + its number', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    let output = '';
    const waiters: Array<() => void> = [];
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      for (const wake of waiters.splice(0)) wake();
    });
    const seen = async (text: string) => {
      while (!output.includes(text)) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    try {
      await seen('ready');
      child.kill('SIGTERM');
      await seen('stopping SIGTERM');
      expect(child.exitCode).toBeNull();
      child.kill('SIGINT');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(130);
    } finally {
      clearTimeout(killer);
    }
  }, 30_000);
});
