import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';

/** A scrape of `GET /metrics`, parsed by a real Prometheus text parser. */
export interface Scrape {
  families: ParsedFamily[];
  /** The value of the sample `name` with exactly `labels`, or undefined without one. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

/**
 * Parses a scrape with parse-prometheus-text-format. It folds a histogram's labelled series into one
 * (dropping their labels, sums and counts), so a histogram is read as the untyped series it is made
 * of — `_bucket`, `_sum`, `_count` — each a family of its own, and families of one name are merged.
 */
export function readScrape(text: string): Scrape {
  const histograms = new Set([...text.matchAll(/^# TYPE (\S+) histogram$/gm)].map((match) => match[1]));
  const untyped = text
    .split('\n')
    .filter((line) => !/^# TYPE (\S+) histogram$/.test(line) || !histograms.has(line.split(' ')[2]))
    .join('\n');
  const families = parsePrometheusTextFormat(untyped);
  const key = (labels: Record<string, string>) => JSON.stringify(Object.entries(labels).sort());
  return {
    families,
    value(name, labels = {}) {
      const found = families
        .filter((family) => family.name === name)
        .flatMap((family) => family.metrics)
        .find((metric) => key(metric.labels ?? {}) === key(labels));
      return found?.value === undefined ? undefined : Number(found.value);
    },
  };
}
