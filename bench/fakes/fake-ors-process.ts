import { ScriptedOrsServer } from '../../test/support/scripted-ors-server.js';
import { serveBenchCalls } from '../support/bench-child.js';
import { BENCH_ENV, benchEnvironment } from './bench-environment.js';

// The fake ORS server in a process of its own: the tests' reference-like fake, serving the bench
// environment. No keep-alive pings (calls answer at once) and no task cache (nothing reconnects),
// so the fake stays cheap.
const server = await ScriptedOrsServer.start({
  environments: { [BENCH_ENV]: benchEnvironment() },
  pingIntervalMs: 0,
  taskCache: false,
});
serveBenchCalls({ url: () => server.url }, () => server.close());
