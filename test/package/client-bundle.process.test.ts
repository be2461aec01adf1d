import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const BUILD_CLIENT = fileURLToPath(new URL('../../scripts/build-browser-client.mjs', import.meta.url));

/**
 * The modules `runbridge/client` may pull in: itself, the list of event types, the route key's path
 * filler, the SSE reader, two transport helpers, and eventsource-parser.
 */
const CLIENT_SIDE = [
  /^src\/client\/[\w-]+\.ts$/,
  /^src\/protocol\/run-event-types\.ts$/,
  /^src\/http\/routes\/route\.ts$/,
  /^src\/sse\/read-sse-events\.ts$/,
  /^src\/http-client\/(backoff|network-failure)\.ts$/,
  /^node_modules\/eventsource-parser\//,
];

describe('the browser build of runbridge/client', () => {
  it('bundles for browsers (no node: import) and holds no server code: no zod, Koa, models or ORS server', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'runbridge-bundle-'));
    try {
      const out = join(dir, 'client.js');
      await promisify(execFile)(process.execPath, [BUILD_CLIENT, out]);
      const meta = JSON.parse(await readFile(`${out}.meta.json`, 'utf8')) as { inputs: Record<string, unknown> };
      const inputs = Object.keys(meta.inputs);
      expect(inputs).toContain('src/client/index.ts');
      // Its list of known events is the protocol's, not a copy.
      expect(inputs).toContain('src/protocol/run-event-types.ts');
      expect(inputs.filter((input) => !CLIENT_SIDE.some((allowed) => allowed.test(input)))).toEqual([]);
      const bundle = await readFile(out, 'utf8');
      expect(bundle).toMatch(/export \{[^}]*\bcreateClient\b/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
