import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderDocs } from '../../scripts/docs/doc-regions.js';
import { GENERATED_PAGES } from '../../scripts/docs/generated-pages.js';
import { METRICS_REGIONS } from '../../scripts/docs/metrics-region.js';

describe('the generated pages of docs/', () => {
  it.each(GENERATED_PAGES)('$path is what its code renders now', ({ path, render }) => {
    const committed = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
    expect(committed, `${path} is stale: run \`npm run docs\` and commit the page`).toBe(render());
  });

  it('docs/operations.md lists the metrics GET /metrics serves', async () => {
    const root = new URL('../../', import.meta.url).pathname;
    for (const { file, current, wanted } of await renderDocs(root, METRICS_REGIONS)) {
      expect(current, `${file} is stale: run \`npm run docs\` and commit it`).toBe(wanted);
    }
  });
});
