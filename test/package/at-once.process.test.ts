import { afterEach, describe, expect, it, vi } from 'vitest';
// @ts-expect-error: a build script in plain JavaScript, without declarations.
import { runAtOnce } from '../../scripts/at-once.mjs';

/** A job that runs `script` in a `node` of its own. */
const node = (name: string, script: string) => ({ name, command: process.execPath, args: ['-e', script] });

/**
 * `npm test` runs tsc's projects and the layering check at once (`scripts/static-checks.mjs`): the
 * command still fails when any of them does, and says which, with that job's whole output.
 */
describe('checks run at once', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('succeeds when every job does, and prints nothing of theirs', async () => {
    const written = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    expect(await runAtOnce([node('one', 'console.log("fine")'), node('two', 'process.exit(0)')])).toBe(0);
    expect(written).not.toHaveBeenCalled();
  });

  it('fails when one job does, printing that job by name with its whole output, and nothing of the others', async () => {
    const written = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    const code = await runAtOnce([
      node('layers', 'console.log("error browser-code-no-node"); process.exit(1)'),
      node('tsc', 'console.log("done")'),
    ]);
    expect(code).toBe(1);
    const printed = written.mock.calls.map(([text]) => String(text)).join('');
    expect(printed).toBe('layers failed:\nerror browser-code-no-node\n');
  });

  it('fails when a command cannot be started at all', async () => {
    vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    expect(await runAtOnce([{ name: 'missing', command: '/nonexistent/command', args: [] }])).toBe(1);
  });
});
