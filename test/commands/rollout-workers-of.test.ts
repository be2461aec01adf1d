import { describe, expect, it } from 'vitest';
import { rolloutWorkersOf } from '../../src/commands/rollout-workers-of.js';

const data = { env: {}, model: 'offline' };

describe('rolloutWorkersOf (the worker threads of runbridge rollout)', () => {
  it('without --workers or RUNBRIDGE_ROLLOUT_WORKERS, starts threads only as the batch can use them, up to the configured count (the cores)', () => {
    const workers = rolloutWorkersOf({
      flag: undefined,
      env: {},
      configured: 2,
      playsHere: false,
      idleCores: 1.5,
      data,
    });
    expect(workers).toMatchObject({ count: 2, asNeeded: true, idleCores: 1.5, data });
    expect(workers?.setup.pathname).toMatch(/set-up-rollout-worker\.(ts|js)$/);
  });

  it('with a count asked for, by flag or setting, starts that many before the batch plays', () => {
    expect(rolloutWorkersOf({ flag: 2, env: {}, configured: 2, playsHere: false, idleCores: 1.5, data })).toMatchObject(
      {
        count: 2,
        asNeeded: false,
      },
    );
    expect(
      rolloutWorkersOf({
        flag: undefined,
        env: { RUNBRIDGE_ROLLOUT_WORKERS: '3' },
        configured: 3,
        playsHere: false,
        idleCores: 1.5,
        data,
      }),
    ).toMatchObject({ count: 3, asNeeded: false });
  });

  it('plays in this thread with one thread, or when the providers or environments live only here', () => {
    expect(
      rolloutWorkersOf({ flag: 1, env: {}, configured: 1, playsHere: false, idleCores: 1.5, data }),
    ).toBeUndefined();
    expect(
      rolloutWorkersOf({ flag: undefined, env: {}, configured: 1, playsHere: false, idleCores: 1.5, data }),
    ).toBeUndefined();
    expect(
      rolloutWorkersOf({ flag: 4, env: {}, configured: 4, playsHere: true, idleCores: 1.5, data }),
    ).toBeUndefined();
  });
});
