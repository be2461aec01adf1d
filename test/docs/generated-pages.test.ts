import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderDocs } from '../../scripts/docs/doc-regions.js';
import { GENERATED_PAGES } from '../../scripts/docs/generated-pages.js';
import { METRICS_REGIONS } from '../../scripts/docs/metrics-region.js';
import { REDIS_KEYS_REGIONS } from '../../scripts/docs/redis-keys-region.js';
import { ROUTE_TABLE_REGIONS } from '../../scripts/docs/route-table-regions.js';
import { pathOf, type RouteKey } from '../../src/http/routes/route.js';
import { ROUTE_TABLE } from '../../src/http/routes/route-table.js';
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

  it('docs/api.md lists every route of the route table, as its declarations say', async () => {
    const root = new URL('../../', import.meta.url).pathname;
    const shown: string[] = [];
    for (const { file, current, wanted } of await renderDocs(root, ROUTE_TABLE_REGIONS)) {
      expect(current, `${file} is stale: run \`npm run docs\` and commit it`).toBe(wanted);
      shown.push(wanted);
    }
    for (const key of Object.keys(ROUTE_TABLE) as RouteKey[]) {
      const [method] = key.split(' ');
      expect(shown.join('\n')).toContain(`| \`${method} ${pathOf(key)}`);
    }
  });
});
