import { describe, expect, it } from 'vitest';
import { eventsFormat } from '../../src/http/formats/events-format.js';
import { openaiFormat } from '../../src/http/formats/openai-format.js';
import {
  DEFAULT_FORMAT_OPTIONS,
  type FormatOptions,
  type StreamContext,
  type StreamFormat,
} from '../../src/http/formats/stream-format.js';
import { frameBatch, REPLAY_BATCH_BYTES } from '../../src/http/frame-batch.js';
import { EventLog } from '../../src/runs/event-log.js';

const delta = (text: string) => ({ event: 'message.delta', delta: text, turn: 1 }) as const;

function counting(format: StreamFormat): StreamFormat & { calls: number } {
  const counted = { ...format, calls: 0 };
  counted.frame = (entry, context) => {
    counted.calls++;
    return format.frame(entry, context);
  };
  return counted;
}

function contextOf(log: EventLog, options: FormatOptions = DEFAULT_FORMAT_OPTIONS): StreamContext {
  return { runId: log.runId, model: 'offline', created: 0, options, log: log.entries };
}

/** Subscribers at the same cursor share one batch of frames, built and encoded once. */
describe('the batches of frames subscribers share', () => {
  it('frames the events once for every subscriber at the same cursor, and the bytes are the text', () => {
    const log = new EventLog('run_1');
    for (const word of ['a', 'b', 'c']) log.append(delta(word));
    const format = counting(eventsFormat);
    const first = frameBatch(log.entries, format, contextOf(log), 0);
    const second = frameBatch(log.entries, format, contextOf(log), 0);
    expect(second).toBe(first);
    expect(format.calls).toBe(3);
    expect(first.to).toBe(3);
    expect(first.bytes.toString()).toBe(log.entries.map((entry) => eventsFormat.frame(entry, contextOf(log))).join(''));
  });

  it('builds a new batch for another cursor, another format, another variant of one, or a log that has grown since', () => {
    const log = new EventLog('run_1');
    log.append(delta('a'));
    log.append(delta('b'));
    const format = counting(eventsFormat);
    const batch = frameBatch(log.entries, format, contextOf(log), 0);
    expect(frameBatch(log.entries, format, contextOf(log), 1)).toMatchObject({ to: 2 });
    expect(frameBatch(log.entries, openaiFormat, contextOf(log), 0)).not.toBe(batch);
    const plain = frameBatch(log.entries, openaiFormat, contextOf(log), 0);
    expect(frameBatch(log.entries, openaiFormat, contextOf(log, { agentEvents: true }), 0)).not.toBe(plain);
    log.append(delta('c'));
    // A subscriber arriving now reads to the end of the log, not only as far as the earlier batch.
    expect(frameBatch(log.entries, format, contextOf(log), 0)).toMatchObject({ to: 3 });
  });

  it("shares a batch between requests that differ only in what does not shape the format's bytes", () => {
    const log = new EventLog('run_1');
    log.append(delta('a'));
    // `agent_events` shapes only format=openai's frames: for format=events both requests read the same bytes.
    const batch = frameBatch(log.entries, eventsFormat, contextOf(log), 0);
    expect(frameBatch(log.entries, eventsFormat, contextOf(log, { agentEvents: true }), 0)).toBe(batch);
  });

  it('never hands one log the batch of another, whatever their run ids', () => {
    const one = new EventLog('run_same');
    const other = new EventLog('run_same');
    one.append(delta('one'));
    other.append(delta('other'));
    const format = counting(eventsFormat);
    expect(frameBatch(one.entries, format, contextOf(one), 0).bytes.toString()).toContain('"one"');
    expect(frameBatch(other.entries, format, contextOf(other), 0).bytes.toString()).toContain('"other"');
  });

  it('stops a batch at its size bound, and shares a full batch even after the log grew', () => {
    const log = new EventLog('run_1');
    const long = 'x'.repeat(1000);
    while (log.length * 1000 < REPLAY_BATCH_BYTES * 2) log.append(delta(long));
    const format = counting(eventsFormat);
    const batch = frameBatch(log.entries, format, contextOf(log), 0);
    expect(batch.to).toBeLessThan(log.length);
    expect(batch.bytes.length).toBeGreaterThanOrEqual(REPLAY_BATCH_BYTES);
    expect(batch.bytes.length).toBeLessThan(REPLAY_BATCH_BYTES + 2000);
    log.append(delta('more'));
    expect(frameBatch(log.entries, format, contextOf(log), 0)).toBe(batch);
  });

  it('keeps batches up to a bound of memory, forgetting the oldest first', () => {
    const log = new EventLog('run_big');
    const long = 'x'.repeat(4000);
    // About 10 MB of frames: more than the batches kept for sharing.
    for (let i = 0; i < 2500; i++) log.append(delta(long));
    const format = counting(eventsFormat);
    const context = contextOf(log);
    const cursors: number[] = [];
    for (let from = 0; from < log.length; from = frameBatch(log.entries, format, context, from).to) cursors.push(from);
    const framed = format.calls;
    // The newest batch is still shared; the first one was forgotten and is framed again.
    frameBatch(log.entries, format, context, cursors.at(-1)!);
    expect(format.calls).toBe(framed);
    frameBatch(log.entries, format, context, 0);
    expect(format.calls).toBeGreaterThan(framed);
  });
});
