import type { Registry } from 'prom-client';
import { ClusterMetrics } from '../../src/telemetry/cluster-metrics.js';
import { PrometheusMetrics } from '../../src/telemetry/prometheus-metrics.js';
import type { DocRegion } from './doc-regions.js';

/**
 * The bridge's own metrics in docs/operations.md, generated from the registry `GET /metrics` serves, and
 * those the primary of `serve --workers N` adds to its page.
 */
export const METRICS_REGIONS: readonly DocRegion[] = [
  { file: 'docs/operations.md', name: 'metrics', render: () => metricsTable(new PrometheusMetrics().registry) },
  { file: 'docs/operations.md', name: 'cluster-metrics', render: () => metricsTable(new ClusterMetrics().registry) },
];

interface MetricShape {
  name: string;
  help: string;
  type: string;
  labelNames: readonly string[];
}

/** A Markdown table of every `runbridge_*` and `gen_ai_*` metric of `registry`: name, type, labels, help; Node's own left out. */
export function metricsTable(registry: Registry): string {
  const rows = registry
    .getMetricsAsArray()
    .filter((metric) => /^(runbridge|gen_ai)_/.test(metric.name))
    .map((metric) => {
      // prom-client keeps a metric's help, type and label names on it without typing them.
      const { name, help, type, labelNames } = metric as unknown as MetricShape;
      const labels = labelNames.length === 0 ? '—' : labelNames.map((label) => `\`${label}\``).join(', ');
      return `| \`${name}\` | ${type} | ${labels} | ${help} |`;
    });
  return ['| metric | type | labels | what it counts |', '|---|---|---|---|', ...rows].join('\n');
}
