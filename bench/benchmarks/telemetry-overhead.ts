import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoadClient } from '../load/load-client-api.js';
import { type BenchContext, type BenchResult, formatNumber, formatRatio } from '../support/bench-result.js';
import { driveApiTurns } from '../support/drive-api-turns.js';
import { alternate, median, pairedRatio, warmUpRounds } from '../support/measure.js';
import { type BenchBridge, startBenchBridge } from '../support/start-bench-bridge.js';

/** Turns per episode: the fake model solves the bench environment in exactly this many. */
const TURNS = 10;
/** CPU per turn with tracing on, and with metrics on, at most these many times with both off. */
const TARGET_TRACING = 1.15;
const TARGET_METRICS = 1.03;

/**
 * Benchmark 11: what the telemetry costs (docs/operations.md). The same episodes through the HTTP API
 * as benchmark 2, on four bridges in this process: every signal off (`RUNBRIDGE_METRICS=0`, no OTLP
 * endpoint; two of them, to see how far alike bridges differ), metrics on, and tracing on (exporting every span over OTLP/HTTP protobuf to a loopback
 * receiver that drops them). Logs are at `warn` on all three, as in every benchmark.
 */
export async function benchTelemetryOverhead(ctx: BenchContext): Promise<BenchResult> {
  const episodes = ctx.quick ? 5 : 40;
  const rounds = ctx.quick ? 1 : 7;
  const model = `solve-in-${TURNS}`;
  const load = new LoadClient(ctx.load);
  // A receiver that reads each export and answers 200, as a Collector would: its CPU counts against tracing.
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const bridges: BenchBridge[] = [];
  const start = async (env: Record<string, string>) => {
    const bridge = await startBenchBridge({ orsUrl: ctx.orsUrl, modelBaseUrl: ctx.modelBaseUrl, env });
    bridges.push(bridge);
    return bridge;
  };
  try {
    const off = await start({ RUNBRIDGE_METRICS: '0' });
    const metrics = await start({ RUNBRIDGE_METRICS: '1' });
    const tracing = await start({ RUNBRIDGE_METRICS: '0', OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl });
    // A second bridge with every signal off: how far two alike bridges differ here, the floor of any ratio.
    const offAgain = await start({ RUNBRIDGE_METRICS: '0' });
    const drive = (bridge: BenchBridge) => () =>
      driveApiTurns(load, { url: bridge.url, model, episodes, turns: TURNS, what: 'Telemetry overhead' });
    const variants = { off: drive(off), metrics: drive(metrics), tracing: drive(tracing), offAgain: drive(offAgain) };
    const warmUps = warmUpRounds(ctx.quick);
    ctx.progress(`telemetry overhead: warming up (${warmUps} round(s))`);
    await alternate(warmUps, variants);
    ctx.progress(`telemetry overhead: ${episodes} episodes × ${TURNS} turns, ${rounds} round(s)`);
    const samples = await alternate(rounds, variants);
    const cpu = (key: keyof typeof samples) => samples[key].map((trial) => trial.cpuUsPerTurn);
    const wall = (key: keyof typeof samples) => samples[key].map((trial) => trial.wallUsPerTurn);
    const tracingRatio = pairedRatio(cpu('tracing'), cpu('off'));
    const metricsRatio = pairedRatio(cpu('metrics'), cpu('off'));
    const row = (name: string, key: keyof typeof samples) => [
      name,
      formatNumber(median(wall(key))),
      formatNumber(median(cpu(key))),
      formatRatio(pairedRatio(cpu(key), cpu('off'))),
    ];
    return {
      title: '11. Telemetry overhead per turn',
      method:
        `${episodes} episodes of ${TURNS} turns through the HTTP API, one after another, as in benchmark 2, on four bridges: ` +
        'every signal off (two of them), metrics on (prom-client, not scraped), and tracing on (OpenTelemetry, every span exported over ' +
        'OTLP/HTTP protobuf to a loopback receiver in this process). Medians, and medians of per-round ratios, over ' +
        `${rounds} alternating round(s) after ${warmUps} warm-up round(s).`,
      tables: [
        {
          columns: ['signals', 'µs per turn', 'CPU µs per turn', 'CPU vs all off'],
          rows: [
            row('all off', 'off'),
            row('metrics on', 'metrics'),
            row('tracing on', 'tracing'),
            row('all off, a second bridge', 'offAgain'),
          ],
        },
      ],
      verdicts: [
        {
          target: `CPU per turn with tracing on ≤ ${TARGET_TRACING}× with it off`,
          measured: formatRatio(tracingRatio),
          met: tracingRatio <= TARGET_TRACING,
        },
        {
          target: `CPU per turn with metrics on ≤ ${TARGET_METRICS}× with them off`,
          measured: formatRatio(metricsRatio),
          met: metricsRatio <= TARGET_METRICS,
        },
      ],
      notes: [
        'A turn here is one streaming model call and one ORS tool call: with tracing, a chat and an execute_tool span, ' +
          'traceparent on both requests, and the server spans of the POST and the event stream.',
        'The second bridge with every signal off measures how far two alike bridges differ on this machine: read the ' +
          'ratios against it.',
        "The receiver's CPU (reading each export) is counted against tracing: it runs in the measuring process.",
      ],
    };
  } finally {
    for (const bridge of bridges) await bridge.shutdown();
    await new Promise((resolve) => sink.close(resolve));
  }
}
