import { describe, expect, it } from 'vitest';
import { SealedSecrets } from '../../src/store/redis/sealed-secrets.js';

describe('sealed secrets of queued runs', () => {
  const secrets = { token: 'sk-live-123', nested: { key: 'value' } };

  it('opens, on any instance with the same secret, what was sealed for the run, and shows none of it', () => {
    const sealed = new SealedSecrets(Buffer.from('shared secret of the cluster'));
    const text = sealed.seal('run_1', secrets);
    expect(text).not.toContain('sk-live');
    expect(Buffer.from(text, 'base64').toString('latin1')).not.toContain('sk-live');
    expect(new SealedSecrets(Buffer.from('shared secret of the cluster')).unseal('run_1', text)).toEqual(secrets);
  });

  it('refuses to open them for another run, under another secret, or once altered', () => {
    const sealed = new SealedSecrets(Buffer.from('shared secret of the cluster'));
    const text = sealed.seal('run_1', secrets);
    expect(() => sealed.unseal('run_2', text)).toThrow();
    expect(() => new SealedSecrets(Buffer.from('another secret entirely')).unseal('run_1', text)).toThrow();
    const bytes = Buffer.from(text, 'base64');
    bytes[20] = bytes[20]! ^ 1;
    expect(() => sealed.unseal('run_1', bytes.toString('base64'))).toThrow();
  });
});
