import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/development.md says a test waits for a condition, never for a time, and bounds no wall-clock
 * duration (speeds are bench/'s). This keeps it true: it scans test/ for the shapes a fixed sleep or
 * a wall-clock bound takes and fails listing each one that is not allowed below.
 */

const ROOT = join(import.meta.dirname, '..');

/** The shapes of a fixed wait or a wall-clock bound, each with what to do instead. */
const SHAPES: Array<{ name: string; pattern: RegExp }> = [
  // A promise resolved by a timer, directly or through an arrow that calls its resolve.
  { name: 'a promise settled by a timer', pattern: /setTimeout\(\s*(\(\)\s*=>\s*)?(resolve|res|r|wake|done)\b/ },
  // Node's promise-returning timers, imported to sleep.
  { name: "Node's promise timers", pattern: /from 'node:timers\/promises'/ },
  // `expect(performance.now() - started).toBeLessThan(…)`.
  { name: 'a wall-clock duration asserted', pattern: /expect\([^;]*\b(performance|Date)\.now\(\)\s*-/ },
  // `expect(tookMs).toBeLessThan(…)`: a measured time under a bound.
  { name: 'a duration bounded from above', pattern: /expect\(\s*\w*(Ms|took\w*|elapsed)\s*\)\.toBeLessThan/ },
];

/**
 * The timers that stay, each for its reason: they model a server we do not own that is slow or away
 * for a given time (the scenario itself), never wait for an outcome of the code under test.
 */
const ALLOWED: Array<{ file: string; line: string; reason: string }> = [
  {
    file: 'support/eventually.ts',
    line: 'setTimeout(resolve, intervalMs)',
    reason: 'the pause between two looks of the one helper that waits for a condition',
  },
  {
    file: 'support/probe-environment.ts',
    line: 'setTimeout(resolve, ms)',
    reason: "the probe environment's `sleep` tool: a tool of a remote environment that takes `ms` to answer",
  },
  {
    file: 'support/redis-server.ts',
    line: 'setTimeout(resolve, downMs)',
    reason: 'Redis away for a given time: the outage a test asks for',
  },
  {
    file: 'multi-instance/redis-stall-while-writing.test.ts',
    line: 'setTimeout(resolve, ms)',
    reason: 'Redis frozen for a given time, shorter or longer than the command timeout and the lease',
  },
  {
    file: 'multi-instance/redis-stall-while-writing.test.ts',
    line: 'setTimeout(resolve, LEASE_MS * 1.5)',
    reason: 'a network that holds every byte to Redis for longer than the lease',
  },
  {
    file: 'multi-instance/redis-restart.test.ts',
    line: 'setTimeout(resolve, LEASE_SECONDS * 1500)',
    reason: 'Redis away for longer than the lease, so every lease has expired when it is back',
  },
  {
    file: 'telemetry/redis-signals.test.ts',
    line: 'setTimeout(resolve, LEASE_SECONDS * 2000)',
    reason: 'Redis away for longer than a lease period, so the lease lapses: the warning checked',
  },
];

/** Every `.ts` file under `dir`, as a path relative to test/. */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** Each line of test/ that takes one of the {@link SHAPES}, as `file:line: shape: text`, and the allowed entries it matched. */
function fixedWaits(): { found: string[]; used: Set<(typeof ALLOWED)[number]> } {
  const found: string[] = [];
  const used = new Set<(typeof ALLOWED)[number]>();
  for (const file of testFiles(ROOT)) {
    if (file === relative(ROOT, import.meta.filename)) continue;
    readFileSync(join(ROOT, file), 'utf8')
      .split('\n')
      .forEach((text, index) => {
        for (const { name, pattern } of SHAPES) {
          if (!pattern.test(text)) continue;
          const allowed = ALLOWED.find((entry) => entry.file === file && text.includes(entry.line));
          if (allowed) used.add(allowed);
          else found.push(`test/${file}:${index + 1}: ${name}: ${text.trim()}`);
        }
      });
  }
  return { found, used };
}

describe('the tests', () => {
  const { found, used } = fixedWaits();

  it('never wait a fixed time nor bound a wall-clock duration (wait for an event: test/support/eventually.ts, or use fake timers)', () => {
    expect(found).toEqual([]);
  });

  it('allow only timers that are still there', () => {
    expect(ALLOWED.filter((entry) => !used.has(entry)).map((entry) => `${entry.file}: ${entry.line}`)).toEqual([]);
  });

  it('are found by the scan (it catches the shapes it names)', () => {
    const samples = [
      'await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));',
      "new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), ms)),",
      "import { setTimeout as sleep } from 'node:timers/promises';",
      'expect(performance.now() - started).toBeLessThan(500);',
      'expect(tookMs).toBeLessThan(2000);',
    ];
    for (const sample of samples)
      expect(
        SHAPES.some(({ pattern }) => pattern.test(sample)),
        sample,
      ).toBe(true);
    expect(SHAPES.some(({ pattern }) => pattern.test('await eventually(() => done, "the end");'))).toBe(false);
  });
});
