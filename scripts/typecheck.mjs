// `npm run typecheck`: tsc over the three projects — the code with its tests, the AI SDK chat page
// test app, the chat page — at once rather than one after the other: on two cores that takes the
// longest one's time instead of the sum of the three. Each project's output is printed whole, in
// order, and the command fails if any project does.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const PROJECTS = ['tsconfig.json', 'test/clients/ai-sdk-chat-page', 'src/ui'];

const results = await Promise.all(
  PROJECTS.map(
    (project) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [tsc, '--noEmit', '-p', project], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.on('close', (code) => resolve({ project, code, output }));
      }),
  ),
);

for (const { project, code, output } of results) {
  if (code === 0) continue;
  process.stderr.write(`tsc -p ${project} failed:\n${output}`);
}
process.exitCode = results.some(({ code }) => code !== 0) ? 1 : 0;
