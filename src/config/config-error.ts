/** Thrown when the environment holds a value we cannot use; the message lists every problem. */
export class ConfigError extends Error {
  /** Each problem of the configuration, one sentence each, naming the variable. */
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = new.target.name;
  }
}
