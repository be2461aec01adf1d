import { type TrajectoryRecord, TrajectoryRecordSchema } from '../../src/rollouts/trajectory-schema.js';
import { parseSseText } from './parse-sse-text.js';

/** Fetches against one bridge (with its key, when it has one). */
export type BridgeFetch = (path: string, init?: RequestInit) => Promise<Response>;

/** POST /v1/rollouts with `body` (and `headers`); the answer's status and JSON. */
export async function postRollout(
  fetch: BridgeFetch,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; answer: Record<string, unknown> }> {
  const response = await fetch('/v1/rollouts', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, answer: (await response.json()) as Record<string, unknown> };
}

/** Starts a batch and returns its id; throws unless it answers 202. */
export async function startRollout(fetch: BridgeFetch, body: Record<string, unknown>): Promise<string> {
  const { status, answer } = await postRollout(fetch, body);
  if (status !== 202) throw new Error(`POST /v1/rollouts answered ${status}: ${JSON.stringify(answer)}`);
  return answer.rollout_id as string;
}

/** Reads a batch's NDJSON records to the stream's end, each validated by the trajectory schema (blank keep-alive lines skipped). */
export async function readRecords(fetch: BridgeFetch, id: string, query = ''): Promise<TrajectoryRecord[]> {
  const response = await fetch(`/v1/rollouts/${id}/records${query}`);
  if (response.status !== 200) throw new Error(`records answered ${response.status}: ${await response.text()}`);
  return ndjsonLines(await response.text()).map((line) => TrajectoryRecordSchema.parse(line));
}

/** The JSON values of NDJSON text, blank (keep-alive) lines skipped. */
export function ndjsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** Reads a batch's records as SSE to the stream's end: each event's id, name and data. */
export async function readRecordEvents(
  fetch: BridgeFetch,
  id: string,
  headers: Record<string, string> = {},
  query = '',
): Promise<Array<{ id?: string; event?: string; data: string }>> {
  const response = await fetch(`/v1/rollouts/${id}/records${query}`, {
    headers: { Accept: 'text/event-stream', ...headers },
  });
  if (response.status === 204) return [];
  if (response.status !== 200) throw new Error(`records answered ${response.status}: ${await response.text()}`);
  return parseSseText(await response.text());
}

/**
 * Reads the first `count` NDJSON records of a batch and then drops the connection, as a client that
 * goes away mid-batch; returns what it read.
 */
export async function readRecordsThenDisconnect(
  fetch: BridgeFetch,
  id: string,
  count: number,
): Promise<TrajectoryRecord[]> {
  const controller = new AbortController();
  const response = await fetch(`/v1/rollouts/${id}/records`, { signal: controller.signal });
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const records: TrajectoryRecord[] = [];
  let buffered = '';
  while (records.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let newline = buffered.indexOf('\n');
    while (newline >= 0 && records.length < count) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== '') records.push(TrajectoryRecordSchema.parse(JSON.parse(line)));
      newline = buffered.indexOf('\n');
    }
  }
  controller.abort();
  await reader.cancel().catch(() => undefined);
  return records;
}
