import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Orders test files as vitest does (the slowest of the last run first, files it has not timed yet
 * before them), but the `load` lane first of all: its retention file is the longest of the suite by
 * far, and on a checkout with no timings yet (CI) it would otherwise start late and end the run alone.
 */
export class LoadFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const isLoad = (file: TestSpecification) => file.project.name === 'load';
    return [...sorted.filter(isLoad), ...sorted.filter((file) => !isLoad(file))];
  }
}
