import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/package-version.js';

describe('PACKAGE_VERSION', () => {
  it("is the version of runbridge's own package.json, found from the sources as from dist/", () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(PACKAGE_VERSION).toBe(manifest.version);
  });
});
