import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests of the HTTP API's behaviour, run a second time with every bridge on a shared Redis store
 * (`RUNBRIDGE_TEST_STORE=redis`, see test/support/start-test-bridge.ts), so both stores answer alike.
 */
const CONTRACT_TESTS = [
  'test/http/runs-api.test.ts',
  'test/http/chat-completions.test.ts',
  'test/http/formats/formats-over-http.test.ts',
  'test/http/task-requests.test.ts',
  'test/security/run-scoping.test.ts',
  'test/security/stream-token.test.ts',
  'test/security/secrets.test.ts',
  'test/store/quotas-and-budgets.test.ts',
  'test/hitl/approvals.test.ts',
  'test/hitl/messages.test.ts',
  'test/webhooks/webhooks.test.ts',
];

export default defineConfig({
  resolve: {
    // The chat page's sources (src/ui/) import the client by its package name, as an app would;
    // tests resolve it to the sources (as tsconfig's paths do for tsc and tsx), never to a stale dist/.
    alias: [
      { find: /^runbridge\/client$/, replacement: fileURLToPath(new URL('./src/client/index.ts', import.meta.url)) },
    ],
  },
  test: {
    // Tests run real HTTP servers on loopback; a generous timeout absorbs a busy 2-core CI machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Leaked timers or sockets keep a worker alive; fail loudly rather than hang CI.
    teardownTimeout: 10_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'memory', include: ['test/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'redis',
          include: CONTRACT_TESTS,
          env: { RUNBRIDGE_TEST_STORE: 'redis' },
          globalSetup: ['test/support/redis-global-setup.ts'],
        },
      },
    ],
  },
});
