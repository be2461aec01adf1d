import { serveBenchCalls } from '../support/bench-child.js';
import { startFakeModelServer } from './fake-model-server.js';

// The fake model vendor in a process of its own (see `fake-model-server.ts`).
const server = await startFakeModelServer();
serveBenchCalls({ baseUrl: () => server.baseUrl }, () => server.close());
