import { describe, expect, it } from 'vitest';
import type { RolloutProgress } from '../../src/rollouts/generate-rollouts.js';
import {
  formatDuration,
  formatProgressBar,
  formatProgressLine,
  ProgressDisplay,
} from '../../src/rollouts/progress-display.js';
import { trackSourceTimers } from '../support/track-source-timers.js';

const START = 1_700_000_000_000;

function progress(overrides: Partial<RolloutProgress> = {}): RolloutProgress {
  return {
    planned: 100,
    skipped: 10,
    completed: 27,
    failed: 3,
    running: 8,
    retried: 1,
    lost: 0,
    cancelled: 0,
    meanReward: 0.8125,
    startedAt: START,
    ...overrides,
  };
}

describe('progress formatting', () => {
  it('shows done, failed, running, mean reward, episodes per second and ETA on the terminal line', () => {
    // 30 episodes ran in 10 s: 3 per second, 60 left → 20 s.
    expect(formatProgressBar(progress(), START + 10_000)).toBe(
      `[${'█'.repeat(10)}${'░'.repeat(14)}] 40/100 · 3 failed · 8 running · reward 0.813 · 3.0 ep/s · ETA 20s`,
    );
  });

  it('writes the same figures as a plain sentence for logs', () => {
    expect(formatProgressLine(progress(), START + 10_000)).toBe(
      'rollouts: 40/100 done (27 completed, 3 failed, 10 skipped), 8 running, mean reward 0.813, 3.0 episodes/s, ETA 20s',
    );
  });

  it('says the ETA and reward are unknown before the first episode ends', () => {
    expect(
      formatProgressLine(progress({ completed: 0, failed: 0, skipped: 0, meanReward: null }), START + 5000),
    ).toContain('mean reward –, 0.0 episodes/s, ETA ?');
  });

  it('writes durations in seconds, minutes or hours', () => {
    expect(formatDuration(42.4)).toBe('42s');
    expect(formatDuration(352)).toBe('5m52s');
    expect(formatDuration(7500)).toBe('2h05m');
    expect(formatDuration(undefined)).toBe('?');
  });
});

describe('ProgressDisplay', () => {
  it('redraws one terminal line in place and ends it on stop', () => {
    const writes: string[] = [];
    let now = START;
    const display = new ProgressDisplay({
      output: { write: (text: string) => writes.push(text), isTTY: true, columns: 200 },
      now: () => now,
    });
    display.update(progress());
    display.update(progress({ completed: 28 }));
    now += 150;
    display.update(progress({ completed: 29 }));
    display.stop();
    display.stop();
    // The second update came within 100 ms of the first draw and is skipped; stop draws the latest.
    expect(writes).toHaveLength(4);
    expect(writes.slice(0, 3).every((text) => text.startsWith('\r\x1b[2K['))).toBe(true);
    expect(writes[2]).toContain('42/100');
    expect(writes[3]).toBe('\n');
  });

  it('cuts the terminal line to the width so it never wraps', () => {
    const writes: string[] = [];
    const display = new ProgressDisplay({
      output: { write: (text: string) => writes.push(text), isTTY: true, columns: 40 },
    });
    display.update(progress());
    display.stop();
    expect(writes[0]!.replace('\r\x1b[2K', '')).toHaveLength(39);
  });

  it('prints a plain line periodically when the output is not a terminal, and a last one on stop', async () => {
    const writes: string[] = [];
    let sawPeriodic!: () => void;
    const periodic = new Promise<void>((resolve) => {
      sawPeriodic = resolve;
    });
    const display = new ProgressDisplay({
      output: {
        write: (text: string) => {
          writes.push(text);
          sawPeriodic();
        },
      },
      intervalMs: 10,
    });
    display.update(progress());
    expect(writes).toEqual([]);
    await periodic;
    display.update(progress({ completed: 30 }));
    display.stop();
    expect(writes.every((text) => text.startsWith('rollouts: ') && text.endsWith('\n'))).toBe(true);
    expect(writes.at(-1)).toContain('43/100 done');
  });

  it('leaves no timer behind once stopped, terminal or not', () => {
    const timers = trackSourceTimers();
    try {
      for (const isTTY of [true, false]) {
        const display = new ProgressDisplay({ output: { write: () => true, isTTY } });
        display.update(progress());
        display.stop();
      }
      expect(timers.pending()).toEqual([]);
    } finally {
      timers.restore();
    }
  });
});
