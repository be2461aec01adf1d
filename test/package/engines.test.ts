import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const read = (name: string) => JSON.parse(readFileSync(fileURLToPath(new URL(name, ROOT)), 'utf8'));

interface LockedPackage {
  version?: string;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

/**
 * The README promises the Node versions of `engines.node`; `npm ci` warns `EBADENGINE` for every
 * package in the lock that asks for a newer one (`@openai/agents` 0.15 on needs `openai` 7, which needs
 * Node 22). An optional package that does not fit is left out without a word, as rollup's
 * `@napi-rs/lzma` is on Node 20.
 */
describe('the Node versions the package promises', () => {
  const promised = (read('package.json') as { engines: { node: string } }).engines.node;
  const oldest = semver.minVersion(promised)!.version;

  it('are those every package it installs runs on, down to the oldest', () => {
    const lock = read('package-lock.json') as { packages: Record<string, LockedPackage> };
    const refused = Object.entries(lock.packages)
      .filter(([path, locked]) => path !== '' && !locked.optional)
      .flatMap(([path, { version, engines }]) => {
        const node = Array.isArray(engines) ? undefined : engines?.node;
        return node === undefined || semver.satisfies(oldest, node) ? [] : [`${path}@${version} wants node ${node}`];
      });
    expect(oldest).toBe('20.19.0');
    expect(refused).toEqual([]);
  });
});
