import { describe, expect, it } from 'vitest';
import { EPISODES_PER_THREAD, rolloutThreads } from '../../src/rollouts/workers/rollout-threads.js';

describe('rolloutThreads', () => {
  it('plays in the calling thread without workers, or with one', () => {
    expect(rolloutThreads(undefined, 8, 10_000)).toEqual({ workers: 0, here: true });
    expect(rolloutThreads({ count: 1 }, 8, 10_000)).toEqual({ workers: 0, here: true });
  });

  it('starts the threads asked for, no more than the episodes at once or pending, while this thread writes', () => {
    expect(rolloutThreads({ count: 4 }, 8, 10_000)).toEqual({ workers: 4, here: false });
    expect(rolloutThreads({ count: 4 }, 2, 10_000)).toEqual({ workers: 2, here: false });
    expect(rolloutThreads({ count: 4 }, 8, 3)).toEqual({ workers: 3, here: false });
    expect(rolloutThreads({ count: 4 }, 8, 1)).toEqual({ workers: 0, here: true });
  });

  it('as needed, plays a small batch in this thread alone', () => {
    expect(rolloutThreads({ count: 2, asNeeded: true }, 256, 600)).toEqual({ workers: 0, here: true });
    expect(rolloutThreads({ count: 2, asNeeded: true }, 256, 2 * EPISODES_PER_THREAD - 1)).toEqual({
      workers: 0,
      here: true,
    });
  });

  it('as needed, adds a worker thread beside this one for each further share of pending episodes, up to the count', () => {
    expect(rolloutThreads({ count: 2, asNeeded: true }, 256, 2 * EPISODES_PER_THREAD)).toEqual({
      workers: 1,
      here: true,
    });
    expect(rolloutThreads({ count: 8, asNeeded: true }, 256, 3 * EPISODES_PER_THREAD + 1)).toEqual({
      workers: 2,
      here: true,
    });
    expect(rolloutThreads({ count: 2, asNeeded: true }, 256, 100 * EPISODES_PER_THREAD)).toEqual({
      workers: 1,
      here: true,
    });
    expect(rolloutThreads({ count: 8, asNeeded: true, episodesPerThread: 4 }, 3, 1000)).toEqual({
      workers: 2,
      here: true,
    });
  });

  it('as needed, adds a worker thread only for a whole core that no other process keeps busy', () => {
    const big = 100 * EPISODES_PER_THREAD;
    expect(rolloutThreads({ count: 2, asNeeded: true, idleCores: 1.9 }, 256, big)).toEqual({ workers: 1, here: true });
    expect(rolloutThreads({ count: 2, asNeeded: true, idleCores: 0.7 }, 256, big)).toEqual({ workers: 0, here: true });
    expect(rolloutThreads({ count: 8, asNeeded: true, idleCores: 3.2 }, 256, big)).toEqual({ workers: 3, here: true });
    expect(rolloutThreads({ count: 2, asNeeded: true, idleCores: -2 }, 256, big)).toEqual({ workers: 0, here: true });
    // Asked for, the threads are started whatever the load.
    expect(rolloutThreads({ count: 2, idleCores: 0 }, 256, big)).toEqual({ workers: 2, here: false });
  });
});
