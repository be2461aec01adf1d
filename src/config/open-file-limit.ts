import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * The process's soft limit of open files (`ulimit -n`), or undefined when there is none or it cannot
 * be read. Linux shows it in `/proc/self/limits`; elsewhere a POSIX shell tells.
 */
export function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\S+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    if (line) return parseLimit(line[1]!);
  } catch {
    // Not Linux: ask a shell below.
  }
  try {
    return parseLimit(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8', timeout: 2000 }).trim());
  } catch {
    return undefined;
  }
}

function parseLimit(text: string): number | undefined {
  const limit = Number(text);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : undefined;
}
