import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** How an example that failed ended: its exit code and what it wrote to stderr. */
export interface ExampleFailure {
  code: number;
  stderr: string;
}

/**
 * Runs an example client as a user would (`command args`, e.g. `sh examples/curl/run.sh`) with `env`
 * over this process's environment; rejects as `execFile` does, on a non-zero exit or after 60 s.
 */
export function runExample(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(command, args, { env: { ...process.env, ...env }, timeout: 60_000 });
}

/** How an example expected to fail ended; undefined when it exited 0, so the test's checks of it fail. */
export function exampleFailure(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<ExampleFailure | undefined> {
  return runExample(command, args, env).then(
    () => undefined,
    (error: ExampleFailure) => error,
  );
}
