// `npm run docs`: writes every generated page of docs/ (scripts/generated-docs.ts) from the code.
import { writeFileSync } from 'node:fs';
import { GENERATED_DOCS } from './generated-docs.js';

for (const { path, render } of GENERATED_DOCS) {
  writeFileSync(new URL(`../${path}`, import.meta.url), render());
  process.stdout.write(`wrote ${path}\n`);
}
