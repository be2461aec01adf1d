import { Agent, type IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { createParser } from 'eventsource-parser';
import { isTerminalEvent, RunCompletedEventSchema } from '../../src/protocol/run-events.js';
import { RunCreatedSchema } from '../../src/protocol/run-snapshot.js';
import { parseSseText } from '../../test/support/parse-sse-text.js';
import { BENCH_TASKS } from '../fakes/bench-environment.js';
import { serveBenchCalls } from '../support/bench-child.js';
import { openStream, postJson, readAllBytes } from './http-exchange.js';
import {
  DriveRunsParamsSchema,
  type DriveRunsResult,
  FinishStreamsParamsSchema,
  type FinishStreamsResult,
  FirstEventParamsSchema,
  OpenStreamsParamsSchema,
} from './load-client-api.js';

/**
 * The load client: opens subscribers, drives runs through the bridge's HTTP API and times first
 * events, in a process of its own so that none of this CPU is charged to the server being measured.
 * While a measurement runs it only moves bytes; streams are parsed (eventsource-parser) and checked
 * once each has ended.
 */

/**
 * A fresh keep-alive agent per call, destroyed when the call is done: connections are reused within
 * a call, and none sits idle between calls, where a server's keep-alive timeout could close it just
 * as it is reused (a "socket hang up" that has nothing to do with what is measured).
 */
async function withAgent<T>(work: (agent: Agent) => Promise<T>): Promise<T> {
  const agent = new Agent({
    keepAlive: true,
    maxSockets: Number.POSITIVE_INFINITY,
    maxFreeSockets: Number.POSITIVE_INFINITY,
  });
  try {
    return await work(agent);
  } finally {
    agent.destroy();
  }
}

/** Connections opened at once while warming up: well under a listen backlog (Node's default is 511). */
const CONNECT_BATCH = 128;

/**
 * Opens `count` keep-alive connections to `baseUrl` (a few `GET /health` at a time) before a timed
 * section, so that section does not begin with a burst of connects — a burst past the server's
 * listen backlog drops SYNs, and each dropped one costs a second of retransmission, not bridge time.
 */
async function warmConnections(agent: Agent, baseUrl: string, count: number): Promise<void> {
  for (let opened = 0; opened < count; opened += CONNECT_BATCH) {
    const batch = Math.min(CONNECT_BATCH, count - opened);
    // Sent in the same tick, so none finds a free connection and each opens its own.
    const responses = await Promise.all(Array.from({ length: batch }, () => openStream(agent, `${baseUrl}/health`)));
    await Promise.all(responses.map((res) => readAllBytes(res)));
  }
}

/** Every body of a stream job, and the `process.hrtime` (ns, one clock for every process) when the last ended. */
const jobs = new Map<number, Promise<{ bodies: Buffer[]; endedAt: bigint }>>();
const streamAgents = new Set<Agent>();
let nextJob = 0;

async function openStreams(params: unknown): Promise<{ job: number }> {
  const { url, count } = OpenStreamsParamsSchema.parse(params);
  // No keep-alive: a stream's connection closes with it, and the job's agent goes with the job.
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  streamAgents.add(agent);
  const responses = await Promise.all(Array.from({ length: count }, () => openStream(agent, url)));
  for (const res of responses) {
    if (res.statusCode !== 200) throw new Error(`GET ${url} answered ${res.statusCode}; expected an event stream.`);
  }
  const job = nextJob++;
  // Reading starts now, so no byte waits in the kernel while the parent prepares the next step.
  const done = Promise.all(responses.map((res) => readAllBytes(res))).then((bodies) => ({
    bodies,
    endedAt: process.hrtime.bigint(),
  }));
  const settled = done.finally(() => {
    agent.destroy();
    streamAgents.delete(agent);
  });
  // A stream can fail before `finishStreams` is called, or without it ever being called (a benchmark
  // that throws in between; the bridge's shutdown then resets the streams). Marking the promise as
  // handled keeps that rejection for `finishStreams` to report instead of it killing this process.
  settled.catch(() => {});
  jobs.set(job, settled);
  return { job };
}

async function finishStreams(params: unknown): Promise<FinishStreamsResult> {
  const { job, keepBody } = FinishStreamsParamsSchema.parse(params);
  const done = jobs.get(job);
  if (!done) throw new Error(`No stream job ${job}.`);
  jobs.delete(job);
  // `endedAt` was taken before these checks, so they cost no measured time.
  const { bodies, endedAt } = await done;
  let events = 0;
  let complete = 0;
  for (const body of bodies) {
    const messages = parseSseText(body.toString('utf8'));
    events += messages.length;
    const last = messages.at(-1)?.event;
    if (last !== undefined && isTerminalEvent({ event: last })) complete++;
  }
  return {
    streams: bodies.length,
    events,
    complete,
    endedAt: String(endedAt),
    body: keepBody && bodies[0] ? bodies[0].toString('utf8') : null,
  };
}

/** One run through the API: POST, then its event stream read to the end. */
async function playRun(
  agent: Agent,
  baseUrl: string,
  body: Record<string, unknown>,
): Promise<{ turns: number; error: string | null }> {
  const created = await postJson(agent, `${baseUrl}/v1/runs`, body);
  if (created.status !== 202)
    return { turns: 0, error: `POST /v1/runs answered ${created.status}: ${JSON.stringify(created.body)}` };
  const { events_url } = RunCreatedSchema.parse(created.body);
  const last = parseSseText(
    (await readAllBytes(await openStream(agent, `${baseUrl}${events_url}`))).toString('utf8'),
  ).at(-1);
  if (last?.event !== 'run.completed')
    return { turns: 0, error: `the run ended with ${last?.event ?? 'nothing'}: ${last?.data ?? ''}` };
  return { turns: RunCompletedEventSchema.parse(JSON.parse(last.data)).turns, error: null };
}

async function driveRuns(params: unknown): Promise<DriveRunsResult> {
  const { baseUrl, body, runs, concurrency } = DriveRunsParamsSchema.parse(params);
  return withAgent(async (agent) => {
    await warmConnections(agent, baseUrl, Math.min(concurrency, runs));
    return playRuns(agent, baseUrl, body, runs, concurrency);
  });
}

async function playRuns(
  agent: Agent,
  baseUrl: string,
  body: Record<string, unknown>,
  runs: number,
  concurrency: number,
): Promise<DriveRunsResult> {
  let started = 0;
  const result: DriveRunsResult = { elapsedMs: 0, completed: 0, failed: 0, turns: 0, firstError: null };
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (started < runs) {
      const index = started++;
      const outcome = await playRun(agent, baseUrl, {
        task: { split: 'train', index: index % BENCH_TASKS },
        ...body,
      }).catch((error: unknown) => ({
        turns: 0,
        error: String(error),
      }));
      result.turns += outcome.turns;
      if (outcome.error === null) result.completed++;
      else {
        result.failed++;
        result.firstError ??= outcome.error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, runs) }, worker));
  result.elapsedMs = performance.now() - t0;
  return result;
}

/** Each sample's stream is read to its end before the next sample, so samples do not overlap. */
async function timeToFirstEvent(params: unknown): Promise<{ samplesMs: number[] }> {
  const { baseUrl, eventsBaseUrl = baseUrl, body, samples } = FirstEventParamsSchema.parse(params);
  return withAgent(async (agent) => {
    const samplesMs: number[] = [];
    for (let i = 0; i < samples; i++) {
      const t0 = performance.now();
      const created = await postJson(agent, `${baseUrl}/v1/runs`, body);
      if (created.status !== 202)
        throw new Error(`POST /v1/runs answered ${created.status}: ${JSON.stringify(created.body)}`);
      const res = await openStream(agent, `${eventsBaseUrl}${RunCreatedSchema.parse(created.body).events_url}`);
      samplesMs.push(await firstEventArrival(res, t0));
    }
    return { samplesMs };
  });
}

/** Milliseconds from `t0` to the chunk that completes the `run.started` frame; reads the rest to the end. */
async function firstEventArrival(res: IncomingMessage, t0: number): Promise<number> {
  let arrival: number | undefined;
  let first: string | undefined;
  const parser = createParser({
    onEvent: (event) => {
      first ??= event.event;
      if (arrival === undefined && event.event === 'run.started') arrival = performance.now() - t0;
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of res) {
    if (arrival === undefined) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
  }
  if (arrival === undefined) throw new Error(`The stream's first event was ${first ?? 'none'}, not run.started.`);
  return arrival;
}

serveBenchCalls({ openStreams, finishStreams, driveRuns, timeToFirstEvent }, async () => {
  for (const agent of streamAgents) agent.destroy();
});
