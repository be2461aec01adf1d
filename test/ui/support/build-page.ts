import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error: the build script is plain JavaScript, run by `npm run build` too.
import { buildUi } from '../../../scripts/build-ui.mjs';

/** A build of the chat page made from the current sources for one test file; `remove` deletes it. */
export interface BuiltPage {
  /** The folder to serve (`startRunbridge`'s `uiDir`). */
  dir: string;
  /** esbuild's list of the modules that went in. */
  inputs: string[];
  remove(): Promise<void>;
}

/**
 * Builds the chat page from `src/ui/` into a fresh temporary folder with the same script as
 * `npm run build`, so tests serve what the sources say now — never a `dist/ui/` left from an older build.
 */
export async function buildPage(): Promise<BuiltPage> {
  const root = await mkdtemp(join(tmpdir(), 'runbridge-ui-'));
  const dir = join(root, 'ui');
  const meta = (await buildUi(dir)) as { inputs: Record<string, unknown> };
  return { dir, inputs: Object.keys(meta.inputs), remove: () => rm(root, { recursive: true, force: true }) };
}
