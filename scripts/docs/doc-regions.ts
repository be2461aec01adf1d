import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A part of a Markdown file that is generated from the code: the lines between
 * `<!-- name:start -->` and `<!-- name:end -->`. Everything around the markers stays hand-written.
 */
export interface DocRegion {
  /** The file, relative to the repository's root, e.g. `docs/api.md`. */
  file: string;
  /** The markers' name, e.g. `error-codes-http`. */
  name: string;
  /** The region's Markdown, without the markers. */
  render(): string;
}

/** A file of regions: what it holds now, and what it should hold. */
export interface DocFile {
  file: string;
  current: string;
  wanted: string;
}

/** `text` (of `file`) with each of `regions` rendered between its markers; throws when a marker is missing. */
export function fillRegions(text: string, file: string, regions: readonly DocRegion[]): string {
  let filled = text;
  for (const region of regions) {
    const start = `<!-- ${region.name}:start -->\n`;
    const end = `<!-- ${region.name}:end -->`;
    const from = filled.indexOf(start);
    const to = filled.indexOf(end, from);
    if (from < 0 || to < 0) throw new Error(`${file} has no "${start.trim()}" … "${end}" markers to fill.`);
    filled = `${filled.slice(0, from + start.length)}${region.render()}\n${filled.slice(to)}`;
  }
  return filled;
}

/** Every file `regions` name under `root`, as it reads and as it should read. */
export async function renderDocs(root: string, regions: readonly DocRegion[]): Promise<DocFile[]> {
  const files = [...new Set(regions.map((region) => region.file))];
  return Promise.all(
    files.map(async (file) => {
      const current = await readFile(join(root, file), 'utf8');
      const wanted = fillRegions(
        current,
        file,
        regions.filter((region) => region.file === file),
      );
      return { file, current, wanted };
    }),
  );
}
