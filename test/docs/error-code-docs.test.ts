import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fillRegions, renderDocs } from '../../scripts/docs/doc-regions.js';
import { ERROR_CODE_REGIONS, errorCodeTable } from '../../scripts/docs/error-code-regions.js';
import { ERROR_CODES, type ErrorCode } from '../../src/protocol/error-codes.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the error tables of the docs', () => {
  it('are what src/protocol/error-codes.ts renders (run `npm run docs` when this fails)', async () => {
    for (const { file, current, wanted } of await renderDocs(root, ERROR_CODE_REGIONS)) {
      expect(current, `${file} is stale: run \`npm run docs\``).toBe(wanted);
    }
  });

  it('hold meanings of one line that fit a table cell', () => {
    for (const [code, { meaning }] of Object.entries(ERROR_CODES)) expect(meaning, code).toMatch(/^[^|\n]+$/);
  });

  it('show every code of the table somewhere', async () => {
    const shown = (await renderDocs(root, ERROR_CODE_REGIONS)).map(({ wanted }) => wanted).join('\n');
    const missing = Object.keys(ERROR_CODES).filter((code) => !shown.includes(`| \`${code}\` |`));
    expect(missing).toEqual([]);
  });

  it('render one row per code, with its status where asked and its meaning', () => {
    const codes: ErrorCode[] = ['queue_full', 'draining'];
    expect(errorCodeTable(codes, true).split('\n')).toEqual([
      '| code | status | when |',
      '|---|---|---|',
      `| \`queue_full\` | 429 | ${ERROR_CODES.queue_full.meaning} |`,
      `| \`draining\` | 503 | ${ERROR_CODES.draining.meaning} |`,
    ]);
    expect(errorCodeTable(['draining'], false)).toBe(
      `| code | when |\n|---|---|\n| \`draining\` | ${ERROR_CODES.draining.meaning} |`,
    );
  });
});

describe('fillRegions', () => {
  const region = { file: 'x.md', name: 'demo', render: () => 'generated' };

  it('replaces only what lies between the markers', () => {
    const text = 'before\n<!-- demo:start -->\nold\nlines\n<!-- demo:end -->\nafter\n';
    expect(fillRegions(text, 'x.md', [region])).toBe(
      'before\n<!-- demo:start -->\ngenerated\n<!-- demo:end -->\nafter\n',
    );
  });

  it('refuses a file without the markers, naming the file and the markers', () => {
    expect(() => fillRegions('no markers here', 'x.md', [region])).toThrow(
      'x.md has no "<!-- demo:start -->" … "<!-- demo:end -->" markers to fill.',
    );
  });
});
