// `npm run docs:errors`: rewrites the error tables of docs/api.md and docs/rollouts.md from the error
// table (src/protocol/error-codes.ts), between their markers; test/docs/error-code-docs.test.ts fails
// while they are stale.
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { renderDocs } from './docs/doc-regions.js';
import { ERROR_CODE_REGIONS } from './docs/error-code-regions.js';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const { file, current, wanted } of await renderDocs(root, ERROR_CODE_REGIONS)) {
  if (wanted === current) continue;
  await writeFile(`${root}/${file}`, wanted);
  console.log(`docs: rewrote ${file}`);
}
