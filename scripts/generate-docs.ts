// `npm run docs`: writes what docs/ generates from the code — whole pages (scripts/docs/generated-pages.ts)
// and the regions between markers of hand-written pages (the error tables, the metrics of operations.md, the Redis keys of deployment.md) — and says which it rewrote.
// test/docs/ fails while a committed page is stale.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderDocs } from './docs/doc-regions.js';
import { ERROR_CODE_REGIONS } from './docs/error-code-regions.js';
import { GENERATED_PAGES } from './docs/generated-pages.js';
import { METRICS_REGIONS } from './docs/metrics-region.js';
import { REDIS_KEYS_REGIONS } from './docs/redis-keys-region.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const { path, render } of GENERATED_PAGES) {
  writeFileSync(`${root}/${path}`, render());
  process.stdout.write(`docs: wrote ${path}\n`);
}
for (const { file, current, wanted } of await renderDocs(root, [
  ...ERROR_CODE_REGIONS,
  ...METRICS_REGIONS,
  ...REDIS_KEYS_REGIONS,
])) {
  if (wanted === current) continue;
  writeFileSync(`${root}/${file}`, wanted);
  process.stdout.write(`docs: rewrote the generated regions of ${file}\n`);
}
