import { execFile, execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const SCRIPT = fileURLToPath(new URL('./read_export.py', import.meta.url));

/**
 * Pythons to try, in order. `python3` on PATH may be a pyenv build without Debian's packages, while
 * Debian's `python3-pandas` (installed by `scripts/ensure-test-tools.sh`) lands in the site-packages
 * of `/usr/bin/python3`.
 */
const CANDIDATES = ['python3', '/usr/bin/python3'];

let withPandas: string | undefined;

/** The first Python that imports pandas; throws, saying how to install it, when none does. */
export function pythonWithPandas(): string {
  if (withPandas !== undefined) return withPandas;
  for (const candidate of CANDIDATES) {
    try {
      execFileSync(candidate, ['-c', 'import pandas; pandas.read_json'], { stdio: 'ignore', timeout: 60_000 });
      withPandas = candidate;
      return candidate;
    } catch {
      // Try the next one.
    }
  }
  throw new Error(
    `No Python with pandas among ${CANDIDATES.join(', ')}: run scripts/ensure-test-tools.sh ` +
      '(npm test runs it first; it installs the Debian package python3-pandas).',
  );
}

/** What `read_export.py` reports about an export. */
export interface PythonReading {
  count: number;
  rows: Array<{ group_id: string; sample_index: number; env: string; reward: number; scored: boolean }>;
  groups: Record<string, { size: number; mean: number; std: number }>;
  /** For grpo: whether every row's group_size, group_mean, group_std and advantage match the reader's own. */
  declared_match: boolean | null;
  /** Per column: the Python types of its non-null values (and, for pandas, the dtype). */
  columns: Record<string, { types: string[]; dtype?: string; present_in_every_row?: boolean }>;
  metadata: Record<string, unknown> | null;
}

/**
 * Loads the export at `path` in Python — with the standard library only (`python3`), or with
 * pandas — and answers what the reader saw (see `read_export.py`).
 */
export async function readWithPython(
  reader: 'stdlib' | 'pandas',
  format: string,
  path: string,
): Promise<PythonReading> {
  const python = reader === 'pandas' ? pythonWithPandas() : 'python3';
  const { stdout } = await promisify(execFile)(python, [SCRIPT, reader, format, path], {
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(stdout) as PythonReading;
}
