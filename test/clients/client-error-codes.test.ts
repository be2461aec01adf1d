import type { ApiErrorCode, ErrorCode } from 'runbridge/client';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { apiErrorOf } from '../../src/client/client-errors.js';
import type { ERROR_CODES } from '../../src/protocol/error-codes.js';

/** The error an answer with `status` and `body` becomes. */
function errorFor(status: number, body: unknown) {
  return apiErrorOf(new Response(JSON.stringify(body), { status, headers: { 'Retry-After': '3' } }), 'POST /v1/runs');
}

/** What a program might do for a code: a switch over the exported union, which narrows in each case. */
function advice(code: ErrorCode): string {
  switch (code) {
    case 'queue_full':
    case 'key_queue_full':
      expectTypeOf(code).toEqualTypeOf<'queue_full' | 'key_queue_full'>();
      return 'retry later';
    case 'unknown_env':
      expectTypeOf(code).toEqualTypeOf<'unknown_env'>();
      return 'pick another environment';
    default:
      expectTypeOf(code).toEqualTypeOf<Exclude<ErrorCode, 'queue_full' | 'key_queue_full' | 'unknown_env'>>();
      return `give up (${code})`;
  }
}

describe("runbridge/client's error codes", () => {
  it('exports ErrorCode, the union of the codes of the error table and nothing else, which a switch narrows', () => {
    expectTypeOf<ErrorCode>().toEqualTypeOf<keyof typeof ERROR_CODES>();
    expectTypeOf<'queue_full'>().toExtend<ErrorCode>();
    expectTypeOf<'queue_ful'>().not.toExtend<ErrorCode>();
    expect(advice('key_queue_full')).toBe('retry later');
  });

  it("types an ApiError's code as one of them, or a string the client does not know", async () => {
    const error = await errorFor(429, { error: { code: 'queue_full', message: 'The queue is full.' } });
    expectTypeOf(error.code).toEqualTypeOf<ApiErrorCode>();
    expectTypeOf<ApiErrorCode>().toEqualTypeOf<ErrorCode | (string & {})>();
    expectTypeOf<Extract<ApiErrorCode, ErrorCode>>().toEqualTypeOf<ErrorCode>();
    expect(error.code).toBe('queue_full');
    const newer = await errorFor(400, { error: { code: 'a_code_from_a_newer_server', message: 'New.' } });
    expect(newer.code).toBe('a_code_from_a_newer_server');
    expect((await errorFor(502, 'Bad Gateway')).code).toBe('http_502');
  });

  it('lets a switch on the code handle known codes and fall back for the rest', async () => {
    const seen: string[] = [];
    for (const code of ['queue_full', 'unknown_env', 'a_code_from_a_newer_server']) {
      const error = await errorFor(429, { error: { code, message: 'm' } });
      switch (error.code) {
        case 'queue_full':
          seen.push(`retry in ${error.retryAfterSeconds} s`);
          break;
        case 'unknown_env':
          seen.push('pick another environment');
          break;
        default:
          seen.push(`unexpected ${error.code}`);
      }
    }
    expect(seen).toEqual(['retry in 3 s', 'pick another environment', 'unexpected a_code_from_a_newer_server']);
  });
});
