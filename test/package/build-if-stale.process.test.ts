import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPTS = ['build.mjs', 'build-freshness.mjs', 'build-browser-client.mjs', 'build-ui.mjs'];
const HOUR_AGO = (Date.now() - 3_600_000) / 1000;
/** When the last build was: after every source, and well before any change a test makes (one in the same millisecond is not newer). */
const HALF_HOUR_AGO = (Date.now() - 1_800_000) / 1000;

/**
 * `npm start` runs `node scripts/build.mjs --if-stale`: it builds only when a source is newer than the
 * last build. Played in a folder of its own holding copies of the build scripts and a few sources; a
 * build there stops at once for want of TypeScript, which is how the test sees that one began.
 */
describe('the build before npm start', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'runbridge-build-'));
    mkdirSync(join(root, 'scripts'));
    for (const script of SCRIPTS) copyFileSync(join(ROOT, 'scripts', script), join(root, 'scripts', script));
    mkdirSync(join(root, 'src/ui'), { recursive: true });
    mkdirSync(join(root, 'adapters'));
    writeFileSync(join(root, 'src/main.ts'), 'export {};\n');
    writeFileSync(join(root, 'src/ui/app.tsx'), 'export {};\n');
    writeFileSync(join(root, 'package.json'), '{"type":"module"}\n');
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist/main.js'), 'export {};\n');
    writeFileSync(join(root, 'dist/.built'), '');
    // Every source an hour old, the stamp of the last build newer than all of them.
    for (const path of ['scripts', ...SCRIPTS.map((script) => `scripts/${script}`), 'src', 'src/ui', 'src/main.ts']) {
      utimesSync(join(root, path), HOUR_AGO, HOUR_AGO);
    }
    for (const path of ['src/ui/app.tsx', 'adapters', 'package.json']) utimesSync(join(root, path), HOUR_AGO, HOUR_AGO);
    utimesSync(join(root, 'dist/.built'), HALF_HOUR_AGO, HALF_HOUR_AGO);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const build = (...args: string[]) =>
    promisify(execFile)(process.execPath, [join(root, 'scripts/build.mjs'), ...args], { cwd: root }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
    );
  const BEGAN = /typescript is not installed/;

  it('skips the build, saying so on stderr, when dist/ is newer than every source', async () => {
    const { code, stderr } = await build('--if-stale');
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /^build: dist\/ is newer than its sources \(src, adapters, package\.json, .*\), so it is not rebuilt; `npm run build` rebuilds it all the same\.\n$/,
    );
    expect(readFileSync(join(root, 'dist/main.js'), 'utf8')).toBe('export {};\n');
  });

  it.each([
    ['a source changed', (root: string) => writeFileSync(join(root, 'src/main.ts'), 'export const x = 1;\n')],
    ["the chat page's source changed", (root: string) => writeFileSync(join(root, 'src/ui/app.tsx'), '\n')],
    ['package.json changed', (root: string) => writeFileSync(join(root, 'package.json'), '{"type":"module"}\n')],
    ['a source was removed', (root: string) => rmSync(join(root, 'src/main.ts'))],
    [
      'a build script changed',
      (root: string) => utimesSync(join(root, 'scripts/build-ui.mjs'), new Date(), new Date()),
    ],
  ])('builds when %s after the last build', async (_, change) => {
    change(root);
    expect((await build('--if-stale')).stderr).toMatch(BEGAN);
  });

  it('builds when no build left its stamp, and always without --if-stale', async () => {
    expect((await build()).stderr).toMatch(BEGAN);
    rmSync(join(root, 'dist/.built'));
    expect((await build('--if-stale')).stderr).toMatch(BEGAN);
  });

  it('is what npm start runs first', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(manifest.scripts.prestart).toBe('node scripts/build.mjs --if-stale');
  });
});
