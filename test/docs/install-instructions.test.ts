import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** Every file under `dir` (relative to the repository), recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/** The fenced code blocks of a Markdown page. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** What the docs and examples tell a user to type to get the package and what its examples need. */
describe('install instructions', () => {
  it('never send anyone to the npm registry for a package of ours: the names are not ours there, and anyone could claim them', () => {
    const sources = ['README.md', ...filesUnder('docs'), ...filesUnder('examples')].filter((path) =>
      /\.(md|mjs|ts|js|py|sh|html)$/.test(path),
    );
    const told = sources.flatMap((path) =>
      [...read(path).matchAll(/npm (?:install|i|add)\b[^\n`]*?(?<![\w./-])runbridge(?:-client)?(?![\w./@-])/g)].map(
        (match) => `${path}: ${match[0]}`,
      ),
    );
    expect(told).toEqual([]);
  });

  it('say how the Node examples get the package in a project of their own', () => {
    for (const example of ['examples/node/stream-run.mjs', 'examples/node/custom-model.mjs']) {
      expect(read(example), example).toMatch(/npm install \.\/runbridge-\*\.tgz/);
    }
  });

  it('show where startRunbridge gets its config in docs/models.md: loadConfig', () => {
    const blocks = codeBlocks(read('docs/models.md')).filter((block) => block.includes('startRunbridge('));
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      expect(block).toMatch(/import \{[^}]*\bloadConfig\b[^}]*\} from 'runbridge'/);
      expect(block).toMatch(/const config = loadConfig\(/);
    }
  });

  it("name what docs/ors.md's environment needs in a project of one's own: zod and tsx beside the package", () => {
    const installs = codeBlocks(read('docs/ors.md')).flatMap((block) =>
      block.split('\n').filter((line) => line.startsWith('npm install ')),
    );
    expect(installs.some((line) => /\bzod\b/.test(line) && /\btsx\b/.test(line))).toBe(true);
  });
});
