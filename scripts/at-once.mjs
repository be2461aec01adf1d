// Runs commands at once rather than one after the other: on two cores that takes about the longest
// one's time, or half their sum, instead of the whole sum. Each failed command's output is printed
// whole, in the order given, and the result is 1 if any failed.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/** tsc over the three projects: the code with its tests, the AI SDK chat page test app, the chat page. */
export const TYPECHECK_JOBS = ['tsconfig.json', 'test/clients/ai-sdk-chat-page', 'src/ui'].map((project) => ({
  name: `tsc -p ${project}`,
  command: process.execPath,
  args: [tsc, '--noEmit', '-p', project],
}));

/** Runs `jobs` ({name, command, args}) at once; resolves to the exit code for all of them. */
export async function runAtOnce(jobs) {
  const results = await Promise.all(
    jobs.map(
      ({ name, command, args }) =>
        new Promise((resolve) => {
          const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
          let output = '';
          child.stdout.on('data', (chunk) => (output += chunk));
          child.stderr.on('data', (chunk) => (output += chunk));
          child.on('error', (error) => resolve({ name, code: 1, output: String(error) }));
          child.on('close', (code) => resolve({ name, code, output }));
        }),
    ),
  );
  for (const { name, code, output } of results) {
    if (code !== 0) process.stderr.write(`${name} failed:\n${output}`);
  }
  return results.some(({ code }) => code !== 0) ? 1 : 0;
}
