import { setTimeout as delay, setImmediate as yieldToEventLoop } from 'node:timers/promises';

/**
 * The workspace's `search`: case-insensitive substring search over file lines. A plain search skips
 * `archive/` (as a code search skips ignored files); a deep search includes it and is slow on purpose
 * (archives are "decompressed" file by file), so real runs show keep-alives and progress while a tool
 * is busy. Both scan in slices and let the event loop run between them: a workspace filled with
 * large files takes seconds to scan, and the server that runs the tool must answer its other
 * requests meanwhile. Both honour their abort signal, so a deleted session stops them at once.
 */

/** One matching line. `line` counts from 1. */
export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

/** Files a plain search skips. */
export const ARCHIVE_PREFIX = 'archive/';
/** At most this many matches are listed; the rest are counted. */
export const MAX_LISTED_MATCHES = 50;
/** Matching lines longer than this are cut, so one minified file cannot flood the result. */
const MAX_LINE_CHARS = 200;
/** Characters scanned between two turns of the event loop: about a millisecond of work. */
export const SCAN_SLICE_CHARS = 256 * 1024;

/** Counts scanned characters and yields to the event loop after every {@link SCAN_SLICE_CHARS}. */
class Scan {
  #sinceYield = 0;

  constructor(private readonly signal: AbortSignal) {}

  async advance(chars: number): Promise<void> {
    this.#sinceYield += chars;
    if (this.#sinceYield < SCAN_SLICE_CHARS) return;
    this.#sinceYield = 0;
    await yieldToEventLoop();
    this.signal.throwIfAborted();
  }
}

/** Every line of `content` containing `needle` (lower case already), in order. */
async function matchLines(path: string, content: string, needle: string, scan: Scan): Promise<SearchMatch[]> {
  const matches: SearchMatch[] = [];
  let start = 0;
  for (let line = 1; start <= content.length; line++) {
    const newline = content.indexOf('\n', start);
    const end = newline < 0 ? content.length : newline;
    const text = content.slice(start, end);
    if (text.toLowerCase().includes(needle)) matches.push({ path, line, text });
    await scan.advance(end - start + 1);
    start = end + 1;
  }
  return matches;
}

/** Searches every file outside `archive/`, in path order, on a snapshot taken at the start. */
export async function searchFiles(
  files: ReadonlyMap<string, string>,
  pattern: string,
  signal: AbortSignal,
): Promise<SearchMatch[]> {
  const scan = new Scan(signal);
  const needle = pattern.toLowerCase();
  const matches: SearchMatch[] = [];
  for (const [path, content] of [...files]) {
    if (path.startsWith(ARCHIVE_PREFIX)) continue;
    matches.push(...(await matchLines(path, content, needle, scan)));
  }
  return matches;
}

/**
 * Searches every file, archives included, spending about `durationMs` in total (spread evenly over the
 * files). Works on a snapshot taken at the start, so a concurrent `write_file` does not change the
 * result half-way. Rejects with the signal's reason as soon as `signal` aborts, leaving no timer behind.
 */
export async function deepSearchFiles(
  files: ReadonlyMap<string, string>,
  pattern: string,
  options: { durationMs: number; signal: AbortSignal },
): Promise<SearchMatch[]> {
  const { durationMs, signal } = options;
  const snapshot = [...files];
  const scan = new Scan(signal);
  const needle = pattern.toLowerCase();
  const perFile = snapshot.length === 0 ? 0 : durationMs / snapshot.length;
  const matches: SearchMatch[] = [];
  for (const [path, content] of snapshot) {
    signal.throwIfAborted();
    try {
      await delay(perFile, undefined, { signal });
    } catch (error) {
      // timers/promises rejects with its own AbortError; callers want the reason the session gave.
      throw signal.aborted ? signal.reason : error;
    }
    matches.push(...(await matchLines(path, content, needle, scan)));
  }
  return matches;
}

/** The text a model reads: a count line, then `path:line: text` lines, and what to do when nothing matched. */
export function formatSearchResult(pattern: string, matches: readonly SearchMatch[], deep: boolean): string {
  const scope = deep ? 'in all files, archive/ included' : `outside ${ARCHIVE_PREFIX}`;
  if (matches.length === 0) {
    const next = deep
      ? 'Try a shorter or different pattern.'
      : `Files under ${ARCHIVE_PREFIX} are searched only with deep: true (slow).`;
    return `No lines contain "${pattern}" ${scope}. ${next}`;
  }
  const listed = matches.slice(0, MAX_LISTED_MATCHES).map(({ path, line, text }) => {
    const cut = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
    return `${path}:${line}: ${cut}`;
  });
  const more =
    matches.length > MAX_LISTED_MATCHES
      ? [`… and ${matches.length - MAX_LISTED_MATCHES} more; use a more specific pattern.`]
      : [];
  const noun = matches.length === 1 ? 'line contains' : 'lines contain';
  return [`${matches.length} ${noun} "${pattern}" ${scope}:`, ...listed, ...more].join('\n');
}
