import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderDocs } from '../../scripts/docs/doc-regions.js';
import { GENERATED_PAGES } from '../../scripts/docs/generated-pages.js';
import { METRICS_REGIONS } from '../../scripts/docs/metrics-region.js';
import { REDIS_KEYS_REGIONS } from '../../scripts/docs/redis-keys-region.js';
import { KEY_LAYOUT } from '../../src/store/redis/redis-keys.js';

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

  it('docs/deployment.md lists every key of the Redis store, as its layout says', async () => {
    const root = new URL('../../', import.meta.url).pathname;
    for (const { file, current, wanted } of await renderDocs(root, REDIS_KEYS_REGIONS)) {
      expect(current, `${file} is stale: run \`npm run docs\` and commit it`).toBe(wanted);
      for (const { key } of Object.values(KEY_LAYOUT))
        expect(wanted).toContain(`\`${key.replace(/\{(\w+)\}/, '<$1>')}\``);
    }
  });
});
