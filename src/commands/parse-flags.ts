import { type ParseArgsConfig, parseArgs } from 'node:util';

/**
 * `parseArgs` (strict, as by default) for a command's `config`. An unknown option throws an `Error`
 * whose message names the option the user probably meant (`--sample` → `--samples`), so a typo says
 * what to type.
 */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const unknown = /^Unknown option '(-{1,2}[^']+)'/.exec((error as Error).message)?.[1];
    if (unknown === undefined) throw error;
    const guess = closestOption(unknown.replace(/^-+/, ''), Object.keys(config.options ?? {}));
    throw new Error(
      `unknown option ${unknown}${guess === undefined ? '' : `; did you mean --${guess}?`} (--help lists the options)`,
    );
  }
}

/** The option nearest to `typed`: one it begins or is begun by, else one at most two edits away. */
function closestOption(typed: string, known: string[]): string | undefined {
  const prefix = known.find((name) => name.startsWith(typed) || typed.startsWith(name));
  if (prefix !== undefined) return prefix;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(typed, name);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
