import { relative } from 'node:path';
import type { RunnerTestFile } from 'vitest';
import type { Reporter, Vitest } from 'vitest/node';

/**
 * A vitest reporter that lists the slowest test files after the summary, with their lane (project),
 * so a file that creeps up is seen in every run (vitest.config.ts lists it after the default reporter).
 * A file's time is its tests plus importing it (its modules and its own set-up): what it costs a run.
 */
export class SlowestFilesReporter implements Reporter {
  readonly #count: number;
  #root = '';
  #log: (text: string) => void = console.log;

  /** `count`: how many files to list (vitest hands a reporter named on the command line `{}`). */
  constructor({ count = 10 }: { count?: number } = {}) {
    this.#count = count;
  }

  onInit(vitest: Vitest): void {
    this.#root = vitest.config.root;
    this.#log = (text) => vitest.logger.log(text);
  }

  onFinished(files: RunnerTestFile[] = []): void {
    if (files.length <= 1) return;
    const timed = files
      .map((file) => ({
        file,
        tests: file.result?.duration ?? 0,
        importing: (file.collectDuration ?? 0) + (file.setupDuration ?? 0),
      }))
      .sort((a, b) => b.tests + b.importing - (a.tests + a.importing))
      .slice(0, this.#count);
    const lanes = Math.max(...timed.map(({ file }) => (file.projectName ?? '').length));
    this.#log(`\n Slowest ${timed.length} of ${files.length} test files (tests + importing):`);
    for (const { file, tests, importing } of timed) {
      const total = seconds(tests + importing).padStart(7);
      const split = `(${seconds(tests)} + ${seconds(importing)})`.padEnd(17);
      this.#log(
        `  ${total} ${split} ${(file.projectName ?? '').padEnd(lanes)}  ${relative(this.#root, file.filepath)}`,
      );
    }
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
