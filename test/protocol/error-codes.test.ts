import { STATUS_CODES } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, errorCodesWhere, isErrorCode } from '../../src/protocol/error-codes.js';

describe('the error table', () => {
  it('holds snake_case codes, each with an error status HTTP knows and at least one place it shows', () => {
    for (const [code, { status, where }] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+(?:_[a-z]+)*$/);
      expect(status >= 400 && status < 600 && STATUS_CODES[status] !== undefined, `${code}: ${status}`).toBe(true);
      expect(where.length, code).toBeGreaterThan(0);
      expect(new Set(where).size, code).toBe(where.length);
    }
  });

  it('lists the codes that show in a place, in the order of the table', () => {
    const cli = errorCodesWhere('cli');
    expect(cli.every((code) => /^(?:rollout|export)_/.test(code))).toBe(true);
    expect(cli.indexOf('rollout_locked')).toBeLessThan(cli.indexOf('export_no_input'));
    expect(errorCodesWhere('run')).toEqual(
      expect.arrayContaining(['model_auth', 'ors_session_lost', 'internal_error']),
    );
    expect(errorCodesWhere('http')).not.toContain('model_auth');
  });

  it('tells its codes from other strings', () => {
    expect(isErrorCode('queue_full')).toBe(true);
    expect(isErrorCode('queue_ful')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
  });
});
