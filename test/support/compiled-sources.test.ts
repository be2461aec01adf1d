import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compiledCli } from './compiled-sources.js';

/**
 * What process tests start the command from (`spawnRunbridge`): the sources as they are at the call,
 * compiled once per state of them. Here on a small repository of its own, so the real one is not touched.
 */
describe('the compiled sources', () => {
  let root: string;
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  const builds = () => readdirSync(join(root, 'node_modules/.cache/runbridge-tests'));

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'runbridge-compiled-'));
    write('tsconfig.json', '{}');
    write(
      'src/cli.ts',
      `import { greeting } from './greeting.js';\nexport const main = (args: string[]): number => (console.log(greeting, ...args), 0);\n`,
    );
    write('src/greeting.ts', `export const greeting: string = 'hello';\n`);
    write('src/ui/page.ts', 'export const page: string = document.title;\n');
    write('adapters/model.ts', 'export const model: string = "offline";\n');
    write(
      'test/support/runbridge-from-sources.ts',
      readFileSync(new URL('./runbridge-from-sources.ts', import.meta.url), 'utf8'),
    );
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it('runs the command as its sources say, each file compiled beside its neighbours, the chat page left out', () => {
    const cli = compiledCli(root);
    expect(execFileSync(process.execPath, [cli, 'there'], { encoding: 'utf8' })).toBe('hello there\n');
    const build = join(dirname(cli), '../..');
    expect(existsSync(join(build, 'adapters/model.js'))).toBe(true);
    expect(existsSync(join(build, 'src/ui/page.js'))).toBe(false);
  });

  it('compiles once per state of the sources, and again as soon as one file changes', () => {
    const first = compiledCli(root);
    expect(compiledCli(root)).toBe(first);
    expect(builds()).toHaveLength(1);

    write('src/greeting.ts', `export const greeting: string = 'hi';\n`);
    const second = compiledCli(root);
    expect(second).not.toBe(first);
    expect(execFileSync(process.execPath, [second], { encoding: 'utf8' })).toBe('hi\n');
    // The compiler options shape the output too.
    write('tsconfig.json', '{ "compilerOptions": { "useDefineForClassFields": false } }');
    expect(compiledCli(root)).not.toBe(second);
  });

  it('keeps the newest few builds, and removes what a builder that died left half-written', () => {
    compiledCli(root);
    const cache = join(root, 'node_modules/.cache/runbridge-tests');
    // No process has a pid above the kernel's largest; this one is alive.
    mkdirSync(join(cache, `0123456789abcdef.${2 ** 30}.1.partial`));
    mkdirSync(join(cache, `0123456789abcdef.${process.pid}.1.partial`));
    for (const greeting of ['one', 'two', 'three', 'four', 'five']) {
      write('src/greeting.ts', `export const greeting: string = '${greeting}';\n`);
      compiledCli(root);
    }
    expect(builds().filter((name) => name.endsWith('.partial'))).toEqual([`0123456789abcdef.${process.pid}.1.partial`]);
    expect(builds().filter((name) => !name.endsWith('.partial'))).toHaveLength(4);
  });
});
