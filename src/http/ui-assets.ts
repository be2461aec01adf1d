import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the chat page, held in memory. */
export interface UiAsset {
  body: Buffer;
  /** The `Content-Type` to answer with. */
  type: string;
  /** A strong ETag of the body, so a browser revalidates with one cheap 304. */
  etag: string;
}

/** The file types the page is built from; a file of any other type in the folder is not served. */
const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  // Source maps, so the page can be read as written (src/ui/) in a browser's developer tools.
  '.map': 'application/json; charset=utf-8',
};

/** The page every other file hangs off; a folder without it holds no build of the page. */
export const UI_ENTRY = 'index.html';

/**
 * The built chat page (docs/ui.md): the files of one flat folder — `scripts/build-ui.mjs` writes
 * `dist/ui/` — read once on first use and served from memory. Only names found in that folder are
 * served, so no request path reaches the file system. A folder without a build is looked at again on
 * the next request, so `npm run build` while the bridge runs makes the page appear without a restart.
 */
export class UiAssets {
  readonly dir: string;
  #loaded: Promise<ReadonlyMap<string, UiAsset>> | undefined;

  /** The page built into `dir` (default: `dist/ui/` of this package). */
  constructor(dir: string = defaultUiDir()) {
    this.dir = dir;
  }

  /** The file `name` of the build, or undefined when there is no such file or no build at all. */
  async get(name: string): Promise<UiAsset | undefined> {
    this.#loaded ??= load(this.dir);
    const files = await this.#loaded;
    if (!files.has(UI_ENTRY)) this.#loaded = undefined;
    return files.get(name);
  }

  /** True once a build of the page is there to serve. */
  async built(): Promise<boolean> {
    return (await this.get(UI_ENTRY)) !== undefined;
  }
}

async function load(dir: string): Promise<ReadonlyMap<string, UiAsset>> {
  const files = new Map<string, UiAsset>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return files;
  }
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    const body = await readFile(join(dir, name)).catch(() => undefined);
    if (body === undefined) continue;
    files.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  return files;
}

/**
 * `dist/ui/` of the runbridge package this module belongs to. Found by walking up to the package's
 * `package.json`, since this module sits at another depth in a clone (`src/http/`) and in the
 * installed package (`dist/src/http/`).
 */
export function defaultUiDir(): string {
  const start = new URL('.', import.meta.url);
  for (let dir = start; ; dir = new URL('..', dir)) {
    if (isRunbridgeRoot(dir)) return fileURLToPath(new URL('dist/ui/', dir));
    if (new URL('..', dir).href === dir.href) {
      throw new Error(`runbridge's package.json was not found above ${start.pathname}; reinstall the package.`);
    }
  }
}

function isRunbridgeRoot(dir: URL): boolean {
  try {
    return (JSON.parse(readFileSync(new URL('package.json', dir), 'utf8')) as { name?: unknown }).name === 'runbridge';
  } catch {
    return false;
  }
}
