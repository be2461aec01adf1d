import { describe, expect, it } from 'vitest';
import { UnauthorizedError } from '../../src/errors.js';
import { Authenticator, LOCAL_OWNER } from '../../src/http/authenticate.js';

describe('bearer authentication', () => {
  it('lets everyone in as the local owner when no key is configured', () => {
    expect(new Authenticator([]).authenticate(undefined)).toBe(LOCAL_OWNER);
  });

  it('names each key as a distinct owner without revealing the key', () => {
    const auth = new Authenticator(['alpha-key', 'beta-key']);
    const alpha = auth.authenticate('Bearer alpha-key');
    const beta = auth.authenticate('bearer beta-key');
    expect(alpha).not.toBe(beta);
    expect(alpha).not.toContain('alpha');
    expect(auth.authenticate('Bearer alpha-key')).toBe(alpha);
  });

  it.each([undefined, '', 'Basic abc', 'Bearer', 'Bearer wrong-key', 'Bearer alpha-key extra'])(
    'rejects %j with a 401',
    (header) => {
      expect(() => new Authenticator(['alpha-key']).authenticate(header)).toThrow(UnauthorizedError);
    },
  );
});
