import { renderConfigurationDoc } from '../../src/config/render-configuration-doc.js';

/**
 * The pages of docs/ written from the code, each with what renders it: `npm run docs` writes them, and
 * test/docs/generated-pages.test.ts fails when a committed one differs from what its code renders now.
 */
export const GENERATED_PAGES: ReadonlyArray<{ path: string; render: () => string }> = [
  { path: 'docs/configuration.md', render: renderConfigurationDoc },
];
