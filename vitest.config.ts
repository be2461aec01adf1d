import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests run real HTTP servers on loopback; a generous timeout absorbs a busy 2-core CI machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Leaked timers or sockets keep a worker alive; fail loudly rather than hang CI.
    teardownTimeout: 10_000,
    pool: 'forks',
  },
});
