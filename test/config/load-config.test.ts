import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

describe('loadConfig', () => {
  it('reads durations in seconds as milliseconds, down to one millisecond', () => {
    expect(loadConfig({ RUNBRIDGE_KEEPALIVE_SECONDS: '0.05' }).keepaliveMs).toBe(50);
    expect(loadConfig({ RUNBRIDGE_STREAM_TOKEN_TTL_SECONDS: '0.001' }).streamTokenTtlMs).toBe(1);
    expect(loadConfig({}).runTimeoutMs).toBe(3_600_000);
  });

  it.each([
    ['RUNBRIDGE_RUN_TIMEOUT_SECONDS', '3000000', /at most 2147483/],
    ['RUNBRIDGE_KEEPALIVE_SECONDS', '0.0001', /at least 0\.001/],
    ['RUNBRIDGE_ORS_PING_SECONDS', '0', /at least 0\.001/],
    ['RUNBRIDGE_RETENTION_SECONDS', 'soon', /number/],
  ])('refuses %s=%s, which no timer can hold, naming the variable', (variable, value, reason) => {
    let error: unknown;
    try {
      loadConfig({ [variable]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(variable);
    expect((error as Error).message).toMatch(reason);
  });

  it('turns the chat page on by default, off with RUNBRIDGE_UI=0 or false, and refuses anything else', () => {
    expect(loadConfig({}).ui.enabled).toBe(true);
    expect(loadConfig({ RUNBRIDGE_UI: '' }).ui.enabled).toBe(true);
    expect(loadConfig({ RUNBRIDGE_UI: '0' }).ui.enabled).toBe(false);
    expect(loadConfig({ RUNBRIDGE_UI: ' False ' }).ui.enabled).toBe(false);
    expect(loadConfig({ RUNBRIDGE_UI: '1' }).ui.enabled).toBe(true);
    expect(() => loadConfig({ RUNBRIDGE_UI: 'maybe' })).toThrow(/RUNBRIDGE_UI: must be 1 or 0/);
  });

  it('refuses a CORS origin no browser sends, such as one without a scheme, and says how to write it', () => {
    expect(() => loadConfig({ RUNBRIDGE_CORS_ORIGINS: 'localhost:3000' })).toThrow(
      /RUNBRIDGE_CORS_ORIGINS: "localhost:3000" is not an origin .* e\.g\. "http:\/\/localhost:3000"/,
    );
    expect(() => loadConfig({ RUNBRIDGE_CORS_ORIGINS: 'https://app.example/path' })).toThrow(
      /"https:\/\/app\.example"/,
    );
    expect(() => loadConfig({ RUNBRIDGE_CORS_ORIGINS: 'http://app.example:80' })).toThrow(/"http:\/\/app\.example"/);
    expect(
      loadConfig({ RUNBRIDGE_CORS_ORIGINS: 'http://localhost:3000/, *, chrome-extension://abc' }).corsOrigins,
    ).toEqual(['http://localhost:3000/', '*', 'chrome-extension://abc']);
  });

  it('reads the webhook settings, and refuses a secret that is not whsec_ and 24 bytes or more of base64', () => {
    const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    expect(
      loadConfig({ RUNBRIDGE_WEBHOOK_SECRET: secret, RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: 'receiver, 10.0.0.5' }).webhooks,
    ).toEqual({
      secret,
      allowedHosts: ['receiver', '10.0.0.5'],
      timeoutMs: 10_000,
      maxAttempts: 8,
      retryMs: 2000,
      concurrency: 16,
      pollMs: 250,
    });
    expect(loadConfig({}).webhooks.secret).toBeUndefined();
    for (const bad of ['hunter2hunter2hunter2', `whsec_${Buffer.alloc(8, 1).toString('base64')}`, 'whsec_!!!']) {
      expect(() => loadConfig({ RUNBRIDGE_WEBHOOK_SECRET: bad })).toThrow(/RUNBRIDGE_WEBHOOK_SECRET: must be "whsec_"/);
    }
  });
});
