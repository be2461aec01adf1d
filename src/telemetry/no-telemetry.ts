import { noMetrics } from './bridge-metrics.js';
import { silentLogger } from './logger.js';
import { QUIET_OBSERVER } from './run-observer.js';
import type { Telemetry } from './telemetry.js';

/**
 * Telemetry that records nothing and logs nowhere: the runs' default when none is given (tests, and
 * the parts used without a server). Free of the telemetry libraries, which only `createTelemetry` loads.
 */
export const noTelemetry: Telemetry = {
  logger: silentLogger,
  metrics: noMetrics,
  scrape: undefined,
  traceRequest: (_request, work) => work(),
  captureTrace: () => undefined,
  observeRun: () => QUIET_OBSERVER,
  observeEnd: () => undefined,
  shutdown: async () => undefined,
};
