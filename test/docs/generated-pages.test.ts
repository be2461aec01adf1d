import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_PAGES } from '../../scripts/docs/generated-pages.js';

describe('the generated pages of docs/', () => {
  it.each(GENERATED_PAGES)('$path is what its code renders now', ({ path, render }) => {
    const committed = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
    expect(committed, `${path} is stale: run \`npm run docs\` and commit the page`).toBe(render());
  });
});
