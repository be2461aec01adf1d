import { describe, expect, it } from 'vitest';
import { OrsError } from '../../../src/errors.js';
import { Redactor } from '../../../src/ors/client/redactor.js';

describe('Redactor', () => {
  it('cuts every long string and number inside the secrets wherever it appears, raw and JSON-escaped', () => {
    const redactor = new Redactor({ key: 'sk-abcdefgh', nested: [{ quote: 'say "hi" now' }], big: 123_456_789 });
    expect(redactor.text('auth sk-abcdefgh; id=xsk-abcdefghx; n=1234567890')).toBe(
      'auth [redacted]; id=x[redacted]x; n=[redacted]0',
    );
    expect(redactor.text('{"quote":"say \\"hi\\" now"}')).toBe('{"quote":"[redacted]"}');
  });

  it('cuts a short value only where it stands alone, so a secret "1" leaves "HTTP 500" and "task 12" alone', () => {
    const redactor = new Redactor({ pin: 1, word: 'ab' });
    expect(redactor.text('pin 1, word "ab", HTTP 500, task 12, v1, tab, ab1')).toBe(
      'pin [redacted], word "[redacted]", HTTP 500, task 12, v1, tab, ab1',
    );
  });

  it("scrubs an OrsError's message and details, keeping its code and status; other errors pass as they are", () => {
    const redactor = new Redactor({ token: 'tok-12345678' });
    const error = new OrsError('GET /x: the ORS server failed: tok-12345678', {
      code: 'ors_server_error',
      details: { endpoint: 'GET /x', detail: 'tok-12345678', list: ['tok-12345678'] },
    });
    const scrubbed = redactor.error(error) as OrsError;
    expect(scrubbed).toBeInstanceOf(OrsError);
    expect(scrubbed).toMatchObject({
      code: 'ors_server_error',
      status: 502,
      message: 'GET /x: the ORS server failed: [redacted]',
      details: { endpoint: 'GET /x', detail: '[redacted]', list: ['[redacted]'] },
    });
    const clean = new OrsError('nothing secret', { code: 'ors_unavailable' });
    expect(redactor.error(clean)).toBe(clean);
    const reason = new Error('tok-12345678');
    expect(redactor.error(reason)).toBe(reason);
  });

  it('has nothing to cut without secrets', () => {
    expect(new Redactor(undefined).text('anything 1 2 3')).toBe('anything 1 2 3');
  });

  it('cuts a value URL-encoded, as a server quoting a URL it was sent writes it', () => {
    const redactor = new Redactor({ key: 'p@ss word/1234' });
    expect(redactor.text('GET /x?key=p%40ss%20word%2F1234 failed')).toBe('GET /x?key=[redacted] failed');
  });

  it('says how much of the end of a text may be the beginning of a long value, for a stream to hold back', () => {
    const redactor = new Redactor({ key: 'sk-abcdefgh', pin: '12' });
    expect(redactor.heldBack('my key is sk-abc')).toBe(6);
    expect(redactor.heldBack('my key is s')).toBe(1);
    expect(redactor.heldBack('my key is sk-abcdefgh')).toBe(0);
    expect(redactor.heldBack('nothing here 1')).toBe(0);
  });
});
