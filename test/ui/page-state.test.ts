import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  ServerError,
  StreamInterruptedError,
  UnavailableError,
} from '../../src/client/index.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { describeError } from '../../src/ui/state/describe-error.js';
import { escapeInvisible } from '../../src/ui/state/escape-invisible.js';
import { formatAgo, formatSeconds, formatTask } from '../../src/ui/state/format.js';
import { Narrator } from '../../src/ui/state/narrator.js';
import { parseRoute, routeHash } from '../../src/ui/state/route.js';
import { messageFields, uiInputOf } from '../../src/ui/state/ui-metadata.js';

const BRIDGE = 'http://127.0.0.1:8080';
const envelope = (seq: number) => ({ seq, run_id: 'run_t', timestamp: 1 });
const delta = (seq: number, text: string): RunEvent => ({
  event: 'message.delta',
  ...envelope(seq),
  delta: text,
  turn: 1,
});

/** The pure parts of the chat page (src/ui/state/): what it tells people, reads to them, and keeps. */
describe("the chat page's error messages", () => {
  it.each([
    [
      new AuthenticationError('bad key', { status: 401, code: 'unauthorized' }),
      'API key needed',
      /RUNBRIDGE_API_KEYS/,
      'key',
    ],
    [
      new RateLimitError('The run queue is full.', { status: 429, code: 'queue_full', retryAfterSeconds: 7 }),
      'The bridge is busy',
      /^The run queue is full\. Try again in 7 seconds\.$/,
      'retry',
    ],
    [
      new InvalidRequestError('too big', { status: 413, code: 'body_too_large' }),
      'Too large',
      /RUNBRIDGE_MAX_BODY_BYTES\)\. Shorten the message/,
      undefined,
    ],
    [
      new InvalidRequestError('Task index 5000 is out of range.', { status: 400, code: 'invalid_task' }),
      'Could not start the run',
      /^Task index 5000 is out of range\.$/,
      undefined,
    ],
    [
      new NotFoundError('No run run_x.', { status: 404, code: 'run_not_found' }),
      'Run not found',
      /forgotten .*RUNBRIDGE_RETENTION_SECONDS.*another API key/,
      undefined,
    ],
    [
      new UnavailableError('The server is shutting down.', { status: 503, code: 'draining' }),
      'The bridge is unavailable',
      /shutting down\. Try again in a moment\./,
      'retry',
    ],
    [
      new ServerError('The ORS server is unreachable.', { status: 502, code: 'ors_unavailable' }),
      'Could not start the run',
      /unreachable\. \(ors_unavailable\)$/,
      'retry',
    ],
    [
      new ConnectionError('fetch failed'),
      'Bridge unreachable',
      /at http:\/\/127\.0\.0\.1:8080 to start the run\. Check that it is running/,
      'retry',
    ],
    [
      new StreamInterruptedError('cut', { lastSeq: 41, cause: undefined }),
      'Connection lost',
      /after event 41 .*Nothing shown is lost\./,
      'resume',
    ],
  ])('says what happened and what to do for %o', (error, title, message, action) => {
    const notice = describeError(error, 'start the run', BRIDGE);
    expect(notice.title).toBe(title);
    expect(notice.message).toMatch(message);
    expect(notice.action).toBe(action);
    if (error instanceof ApiError) expect(notice.code).toBe(error.code);
  });

  it('keeps the seconds a 429 asks to wait', () => {
    const error = new RateLimitError('busy', { status: 429, code: 'too_many_streams', retryAfterSeconds: 1 });
    expect(describeError(error, 'start the run', BRIDGE)).toMatchObject({ retryAfterSeconds: 1 });
    expect(describeError(error, 'start the run', BRIDGE).message).toMatch(/in 1 second\.$/);
  });
});

describe("the chat page's narration for screen readers", () => {
  it('reads streamed text a sentence at a time, and the rest when the turn ends', () => {
    const narrator = new Narrator();
    expect(narrator.push(delta(0, 'I will add '))).toEqual([]);
    expect(narrator.push(delta(1, 'the numbers. Then I'))).toEqual(['I will add the numbers.']);
    expect(narrator.push(delta(2, ' check 3.5 twice'))).toEqual([]);
    expect(
      narrator.push({
        event: 'turn.completed',
        ...envelope(3),
        turn: 1,
        finish_reason: 'stop',
        usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
      }),
    ).toEqual(['Then I check 3.5 twice']);
  });

  it('says when a call waits for a decision and what was decided, and when chat mode waits', () => {
    const narrator = new Narrator();
    const call = { tool: 'search', tool_call_id: 'c', turn: 1, call_index: 0 };
    expect(
      narrator.push({
        event: 'tool.approval_required',
        ...envelope(0),
        ...call,
        approval_id: 'apr_1',
        arguments: {},
        expires_at: 9,
        on_timeout: 'deny',
      }),
    ).toEqual(['search waits for your decision.']);
    expect(
      narrator.push({
        event: 'tool.approval_resolved',
        ...envelope(1),
        ...call,
        approval_id: 'apr_1',
        decision: 'deny',
        by: 'client',
        arguments: {},
        edited: false,
      }),
    ).toEqual(['search denied.']);
    expect(narrator.push({ event: 'run.awaiting_input', ...envelope(2), turn: 1, expires_at: 9 })).toEqual([
      'Your turn: the model waits for your message.',
    ]);
  });

  it('says when a tool is called and how it ended, and how the run ended', () => {
    const narrator = new Narrator();
    const call = { tool: 'search', tool_call_id: 'c', turn: 1, call_index: 0 };
    narrator.push(delta(0, 'Searching now'));
    expect(narrator.push({ event: 'tool.started', ...envelope(1), ...call, arguments: {}, preview: '' })).toEqual([
      'Searching now',
      'Calling search.',
    ]);
    expect(
      narrator.push({
        event: 'tool.completed',
        ...envelope(2),
        ...call,
        duration: 3.2,
        error: false,
        output: 'x',
        reward: 1,
        finished: true,
      }),
    ).toEqual(['search finished after 3.20 s, reward 1.']);
    expect(narrator.push({ event: 'run.cancelled', ...envelope(3), reason: 'client' })).toEqual(['Run cancelled.']);
    expect(narrator.push({ event: 'tool.progress', ...envelope(4), ...call, elapsed: 5 })).toEqual([]);
  });
});

describe("the chat page's address and bookkeeping", () => {
  it('names the run in the URL fragment, and refuses anything that is not a run id', () => {
    expect(parseRoute(routeHash('run_abc123'))).toEqual({ runId: 'run_abc123' });
    expect(parseRoute(routeHash(undefined))).toEqual({ runId: undefined });
    expect(parseRoute('#/runs/run_x/../y')).toEqual({ runId: undefined });
    expect(parseRoute('')).toEqual({ runId: undefined });
  });

  it("keeps the starting message in the run's metadata, cut to fit, and reads it back from the snapshot", () => {
    expect(messageFields('  ')).toEqual({});
    expect(messageFields('Add them.')).toEqual({ input: 'Add them.', metadata: { ui_input: 'Add them.' } });
    const long = 'x'.repeat(10_000);
    const fields = messageFields(long);
    expect(fields.input).toBe(long);
    expect(fields.metadata).toEqual({ ui_input: `${'x'.repeat(4000)}…` });
    expect(uiInputOf({ metadata: { ui_input: 'Add them.' } } as unknown as RunSnapshot)).toBe('Add them.');
    expect(uiInputOf({ metadata: { ui_input: 3 } } as unknown as RunSnapshot)).toBeUndefined();
    expect(uiInputOf(undefined)).toBeUndefined();
  });

  it('formats durations, tasks and ages as a person reads them', () => {
    expect(formatSeconds(0.0123)).toBe('12 ms');
    expect(formatSeconds(2.412)).toBe('2.41 s');
    expect(formatSeconds(12.34)).toBe('12.3 s');
    expect(formatSeconds(125)).toBe('2 min 5 s');
    expect(formatTask({ split: 'train', index: 2 })).toBe('train #2');
    expect(formatTask({ spec: { a: 1 } })).toBe('custom task');
    expect(formatAgo(1000, 1_010_000)).toBe('just now');
    expect(formatAgo(1000, 1_000_000 + 300_000)).toBe('5 min ago');
  });
});

describe('what a person is shown of tool arguments', () => {
  it('writes bidi controls and invisible characters as JSON escapes, and leaves every other character alone', () => {
    expect(escapeInvisible('report\u202Efdp.exe')).toBe('report\\u202Efdp.exe');
    expect(escapeInvisible('a\u200Bb\u2066c\u2069\uFEFF')).toBe('a\\u200Bb\\u2066c\\u2069\\uFEFF');
    // An invisible tag character (beyond U+FFFF) as JSON writes it: two UTF-16 escapes.
    expect(escapeInvisible('ok\u{E0041}')).toBe('ok\\uDB40\\uDC41');
    expect(escapeInvisible('bell\u0007 and\r')).toBe('bell\\u0007 and\\u000D');
    expect(escapeInvisible('tab\tnew line\nنص عربي, 漢字, é, 🙂')).toBe('tab\tnew line\nنص عربي, 漢字, é, 🙂');
  });

  it('keeps JSON valid and equal to what it was: approving what is shown runs what the model sent', () => {
    const args = { path: 'notes\u202Etxt.exe', hidden: 'x\u{E0041}\u200D', plain: 'ab' };
    const shown = escapeInvisible(JSON.stringify(args, null, 2));
    expect(shown).not.toMatch(/[\u202E\u200D]/);
    expect(JSON.parse(shown)).toEqual(args);
  });
});
