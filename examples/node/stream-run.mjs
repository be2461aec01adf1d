#!/usr/bin/env node
/**
 * Start a runbridge run and print one line per event as it streams, with the typed client
 * `runbridge/client` (plain Node 20 ESM). In a project of your own, install the package first from a
 * tarball built in a clone of this repository — `npm ci && npm pack` there, then
 * `npm install ./runbridge-*.tgz` — since its name is not on the npm registry.
 *
 *   node examples/node/stream-run.mjs [ENV]
 *
 * RUNBRIDGE_URL (default http://127.0.0.1:8080) says where the bridge is, RUNBRIDGE_API_KEY (optional)
 * which bearer key to send. Exits 1 when the run does not complete, or with a one-line message when
 * the bridge cannot be reached or refuses the run.
 */
import { ApiError, createClient, isKnownRunEvent, RunbridgeClientError } from 'runbridge/client';

const client = createClient({
  baseUrl: process.env.RUNBRIDGE_URL ?? 'http://127.0.0.1:8080',
  apiKey: process.env.RUNBRIDGE_API_KEY || undefined,
});
const env = process.argv[2];

/** Whether the last thing written is message text still waiting for its line break. */
let inText = false;
let exitCode = 1;
try {
  const run = await client.runs.create(env ? { env } : {});
  console.log(`run ${run.run_id}`);
  // Resumes by itself with Last-Event-ID if the connection drops; ends after the terminal event.
  for await (const event of client.runs.events(run.run_id)) print(event);
} catch (error) {
  if (!(error instanceof RunbridgeClientError)) throw error;
  if (inText) process.stdout.write('\n');
  inText = false;
  const answer = error instanceof ApiError ? `${error.status} ${error.code}: ` : '';
  console.error(`stream-run: ${answer}${error.message}`);
}
if (inText) process.stdout.write('\n');
process.exitCode = exitCode;

function print(event) {
  if (event.event === 'message.delta') {
    // Text streams token by token; it stays on one line until another event interrupts it.
    if (!inText) process.stdout.write(`${event.seq} message: `);
    process.stdout.write(event.delta);
    inText = true;
    return;
  }
  // The whole reasoning comes again in reasoning.available, and a call's whole arguments in
  // tool.started: each is printed once below.
  if (event.event === 'reasoning.delta' || event.event === 'tool.arguments.delta') return;
  if (inText) process.stdout.write('\n');
  inText = false;
  console.log(`${event.seq} ${event.event} ${describe(event)}`.trimEnd());
  if (event.event === 'run.completed') exitCode = 0;
}

function describe(event) {
  // A newer bridge may send event types this client does not know yet: shown by name only.
  if (!isKnownRunEvent(event)) return '';
  switch (event.event) {
    case 'run.started':
      return `env=${event.env} task=${JSON.stringify(event.task)} model=${event.model}`;
    case 'reasoning.available':
      return event.text;
    case 'tool.started':
      return `${event.tool} ${JSON.stringify(event.arguments)}`;
    case 'tool.progress':
      return `${event.tool} running for ${event.elapsed}s`;
    case 'tool.completed':
      return `${event.tool} ${event.duration}s error=${event.error} reward=${event.reward} → ${event.output.split('\n')[0].slice(0, 120)}`;
    case 'turn.completed':
      return `${event.turn} ${event.finish_reason} tokens=${event.usage.total_tokens}`;
    case 'run.completed':
      return `reward=${event.reward} turns=${event.turns} stop=${event.stop_reason}`;
    case 'run.failed':
      return `${event.code}: ${event.error}`;
    case 'run.cancelled':
      return event.reason;
    default:
      return '';
  }
}
