#!/usr/bin/env node
/**
 * Start a runbridge run and print one line per event as it streams: plain Node 20 (global fetch)
 * and eventsource-parser for the SSE framing.
 *
 *   node examples/node/stream-run.mjs [ENV]
 *
 * RUNBRIDGE_URL (default http://127.0.0.1:8080) says where the bridge is, RUNBRIDGE_API_KEY (optional)
 * which bearer key to send. Exits 1 when the run does not complete.
 */
import { createParser } from 'eventsource-parser';

const baseUrl = (process.env.RUNBRIDGE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
const auth = process.env.RUNBRIDGE_API_KEY ? { Authorization: `Bearer ${process.env.RUNBRIDGE_API_KEY}` } : {};
const env = process.argv[2];

const started = await fetch(`${baseUrl}/v1/runs`, {
  method: 'POST',
  headers: { ...auth, 'Content-Type': 'application/json' },
  body: JSON.stringify(env ? { env } : {}),
});
const run = await started.json();
if (started.status !== 202)
  fail(`POST /v1/runs answered ${started.status}: ${run.error?.message ?? JSON.stringify(run)}`);
console.log(`run ${run.run_id}`);

// events_url is a path; it is resolved against the bridge, not against this process.
const stream = await fetch(new URL(run.events_url, `${baseUrl}/`), {
  headers: { ...auth, Accept: 'text/event-stream' },
});
if (stream.status !== 200 || !stream.body)
  fail(`GET ${run.events_url} answered ${stream.status}: ${await stream.text()}`);

/** Whether the last thing written is message text still waiting for its line break. */
let inText = false;
let exitCode = 1;
const parser = createParser({ onEvent: (frame) => print(JSON.parse(frame.data)) });
const decoder = new TextDecoder();
for await (const chunk of stream.body) parser.feed(decoder.decode(chunk, { stream: true }));
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

function fail(message) {
  console.error(`stream-run: ${message}`);
  process.exit(1);
}
