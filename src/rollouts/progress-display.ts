import type { RolloutProgress } from './rollout-batch.js';

/** Where progress goes: `process.stdout`, or anything with its shape. */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Settings of a {@link ProgressDisplay}. */
export interface ProgressDisplayOptions {
  output: ProgressOutput;
  /** Period of the plain lines when the output is not a terminal; default 10 000 ms. */
  intervalMs?: number;
  now?: () => number;
}

/** Least time between two redraws of the terminal line, so thousands of updates a second cost nothing. */
const REDRAW_MS = 100;
/** The terminal line is also redrawn this often with no update, so the rate and ETA stay current. */
const TICK_MS = 1000;
const BAR_WIDTH = 24;

/**
 * Shows a batch's progress. On a terminal: one line redrawn in place — a bar, done / failed / running,
 * mean reward, episodes per second, ETA. Elsewhere (a log file, CI): a plain line every `intervalMs`.
 * Owns one timer (unref'd, so it never keeps a process alive); `stop()` clears it and prints the last line.
 */
export class ProgressDisplay {
  readonly #output: ProgressOutput;
  readonly #tty: boolean;
  readonly #now: () => number;
  readonly #timer: ReturnType<typeof setInterval>;
  #latest: RolloutProgress | undefined;
  #drawnAt = Number.NEGATIVE_INFINITY;
  #stopped = false;

  /** Starts the display's timer; nothing is drawn before the first {@link ProgressDisplay.update}. */
  constructor(options: ProgressDisplayOptions) {
    this.#output = options.output;
    this.#tty = options.output.isTTY === true;
    this.#now = options.now ?? Date.now;
    this.#timer = setInterval(() => this.#draw(), this.#tty ? TICK_MS : (options.intervalMs ?? 10_000));
    this.#timer.unref();
  }

  /** Takes the latest counts; on a terminal the line is redrawn at most every 100 ms. */
  update(progress: RolloutProgress): void {
    if (this.#stopped) return;
    this.#latest = progress;
    if (this.#tty && this.#now() - this.#drawnAt >= REDRAW_MS) this.#draw();
  }

  /** Clears the timer and prints the final state (ending the terminal line); idempotent. */
  stop(): void {
    if (this.#stopped) return;
    clearInterval(this.#timer);
    this.#draw();
    this.#stopped = true;
    if (this.#tty && this.#latest) this.#output.write('\n');
  }

  #draw(): void {
    if (this.#stopped || this.#latest === undefined) return;
    this.#drawnAt = this.#now();
    if (this.#tty) {
      const line = formatProgressBar(this.#latest, this.#drawnAt);
      const width = this.#output.columns ?? 120;
      // \r plus "erase line" rewrites the line in place; cutting at the width keeps it from wrapping.
      this.#output.write(`\r\x1b[2K${line.length > width - 1 ? line.slice(0, width - 1) : line}`);
    } else {
      this.#output.write(`${formatProgressLine(this.#latest, this.#drawnAt)}\n`);
    }
  }
}

/** The terminal line, e.g. `[██████░░…] 120/1600 · 3 failed · 32 running · reward 0.810 · 4.2 ep/s · ETA 5m52s`. */
export function formatProgressBar(progress: RolloutProgress, now: number): string {
  const figures = figuresOf(progress, now);
  const filled = progress.planned === 0 ? BAR_WIDTH : Math.round((figures.done / progress.planned) * BAR_WIDTH);
  const bar = `${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}`;
  return [
    `[${bar}] ${figures.done}/${progress.planned}`,
    `${progress.failed} failed`,
    `${progress.running} running`,
    `reward ${formatReward(progress.meanReward)}`,
    `${figures.rate.toFixed(1)} ep/s`,
    `ETA ${formatDuration(figures.etaSeconds)}`,
  ].join(' · ');
}

/** The plain line, e.g. `rollouts: 120/1600 done (117 completed, 3 failed, 0 skipped), 32 running, mean reward 0.810, 4.2 episodes/s, ETA 5m52s`. */
export function formatProgressLine(progress: RolloutProgress, now: number): string {
  const figures = figuresOf(progress, now);
  return (
    `rollouts: ${figures.done}/${progress.planned} done (${progress.completed} completed, ${progress.failed} failed, ${progress.skipped} skipped), ` +
    `${progress.running} running, mean reward ${formatReward(progress.meanReward)}, ${figures.rate.toFixed(1)} episodes/s, ETA ${formatDuration(figures.etaSeconds)}`
  );
}

/** Seconds as `45s`, `5m52s` or `2h05m`; `?` when unknown (nothing finished yet). */
export function formatDuration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '?';
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

function figuresOf(
  progress: RolloutProgress,
  now: number,
): { done: number; rate: number; etaSeconds: number | undefined } {
  const ran = progress.completed + progress.failed;
  const done = progress.skipped + ran;
  const elapsedSeconds = Math.max(0, now - progress.startedAt) / 1000;
  const rate = elapsedSeconds > 0 ? ran / elapsedSeconds : 0;
  return { done, rate, etaSeconds: rate > 0 ? (progress.planned - done) / rate : undefined };
}

function formatReward(reward: number | null): string {
  return reward === null ? '–' : reward.toFixed(3);
}
