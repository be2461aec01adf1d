import { describe, expect, it } from 'vitest';
import { runDataRedactor } from '../../src/runs/run-data-redactor.js';

/** What a run writes, without its secrets nor the bridge's (src/runs/run-data-redactor.ts). */
describe('runDataRedactor', () => {
  const KEY = 'sk-OPERATOR-0123456789abcdef';

  it("cuts the bridge's secrets out of every string, ids and names included, but leaves values under 8 characters", () => {
    const redact = runDataRedactor(undefined, [KEY, 'unused'])!;
    expect(redact.value({ event: 'tool.started', tool_call_id: `call_${KEY}`, preview: 'unused here' })).toEqual({
      event: 'tool.started',
      tool_call_id: 'call_[redacted]',
      preview: 'unused here',
    });
    expect(runDataRedactor(undefined, ['unused', ''])).toBeUndefined();
  });

  it('redacts a secret spelled out across the pieces of a stream, each text on its own', () => {
    const pieces = runDataRedactor({ token: 'tok-12345678' }, [KEY])!.streams();
    const said = ['Key: sk-OP', 'ERATOR-0123', '456789ab', 'cdef; token tok-', '1234', '5678.'];
    const out = said.map((piece) => pieces.push('text', piece));
    expect(pieces.push('call:1', 'sk-O')).toBe('');
    out.push(pieces.end('text'));
    expect(out.join('')).toBe('Key: [redacted]; token [redacted].');
    expect(out[0]).toBe('Key: ');
    expect(pieces.end('call:1')).toBe('sk-O');
  });

  it('redacts the beginning of a secret a stream ended in, 8 characters or more of it', () => {
    const pieces = runDataRedactor(undefined, [KEY])!.streams();
    expect(pieces.push('text', 'Key: sk-OPERATOR-01')).toBe('Key: ');
    expect(pieces.end('text')).toBe('[redacted]');
  });
});
