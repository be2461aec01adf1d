import { serveBenchCalls } from './bench-child.js';
import { startBenchBridge } from './start-bench-bridge.js';

// A bench bridge in a process of its own: `bench-bridge-process.ts <ORS URL> <model base URL>`.

const [orsUrl, modelBaseUrl] = process.argv.slice(2);
if (orsUrl === undefined || modelBaseUrl === undefined)
  throw new Error('usage: bench-bridge-process.ts <ORS URL> <model base URL>');

const bridge = await startBenchBridge({ orsUrl, modelBaseUrl });
serveBenchCalls({ url: () => bridge.url }, () => bridge.shutdown());
