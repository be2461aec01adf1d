import { readFileSync } from 'node:fs';

/**
 * The version in runbridge's own package.json. Found by walking up from this module, since the
 * module sits at a different depth in a clone (`src/`) and in the installed package (`dist/src/`).
 */
export const PACKAGE_VERSION: string = findVersion(new URL('.', import.meta.url));

function findVersion(start: URL): string {
  for (let dir = start; ; dir = new URL('..', dir)) {
    try {
      const manifest = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === 'runbridge' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // No package.json here (or not ours): look one level up.
    }
    if (new URL('..', dir).href === dir.href) {
      throw new Error(`runbridge's package.json was not found above ${start.pathname}; reinstall the package.`);
    }
  }
}
