import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { configuredProviders } from '../../src/configured-providers.js';

describe('loadConfig', () => {
  it('reads durations in seconds as milliseconds, down to one millisecond', () => {
    expect(loadConfig({ RUNBRIDGE_KEEPALIVE_SECONDS: '0.05' }).keepaliveMs).toBe(50);
    expect(loadConfig({ RUNBRIDGE_STREAM_TOKEN_TTL_SECONDS: '0.001' }).streamTokenTtlMs).toBe(1);
    expect(loadConfig({}).runTimeoutMs).toBe(3_600_000);
  });

  it('writes to subscribers at most every 10 ms by default, and on every turn of the event loop with RUNBRIDGE_STREAM_FLUSH_SECONDS=0', () => {
    expect(loadConfig({}).streamFlushMs).toBe(10);
    expect(loadConfig({ RUNBRIDGE_STREAM_FLUSH_SECONDS: '0' }).streamFlushMs).toBe(0);
    expect(loadConfig({ RUNBRIDGE_STREAM_FLUSH_SECONDS: '0.05' }).streamFlushMs).toBe(50);
  });

  it.each([
    ['RUNBRIDGE_RUN_TIMEOUT_SECONDS', '3000000', /at most 2147483/],
    ['RUNBRIDGE_KEEPALIVE_SECONDS', '0.0001', /at least 0\.001/],
    ['RUNBRIDGE_ORS_PING_SECONDS', '0', /at least 0\.001/],
    ['RUNBRIDGE_RETENTION_SECONDS', 'soon', /number/],
    ['RUNBRIDGE_STREAM_FLUSH_SECONDS', '-0.01', /0 or more/],
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
      concurrencyPerKey: Number.MAX_SAFE_INTEGER,
      breakerFailures: 5,
      breakerMs: 30_000,
      pollMs: 250,
    });
    expect(loadConfig({}).webhooks.secret).toBeUndefined();
    // With two or more keys, one key's deliveries hold half of the slots at most.
    const keys = { RUNBRIDGE_API_KEYS: 'tenant-a-0123456789abcdef,tenant-b-0123456789abcdef' };
    expect(loadConfig(keys).webhooks.concurrencyPerKey).toBe(8);
    expect(loadConfig({ ...keys, RUNBRIDGE_WEBHOOK_CONCURRENCY: '5' }).webhooks.concurrencyPerKey).toBe(3);
    expect(loadConfig({ ...keys, RUNBRIDGE_WEBHOOK_CONCURRENCY_PER_KEY: '2' }).webhooks.concurrencyPerKey).toBe(2);
    for (const bad of ['hunter2hunter2hunter2', `whsec_${Buffer.alloc(8, 1).toString('base64')}`, 'whsec_!!!']) {
      expect(() => loadConfig({ RUNBRIDGE_WEBHOOK_SECRET: bad })).toThrow(/RUNBRIDGE_WEBHOOK_SECRET: must be "whsec_"/);
    }
  });

  it('reads the new intervals, with the values that were constants before as defaults', () => {
    const defaults = loadConfig({});
    expect([defaults.sweepMs, defaults.queuePollMs, defaults.webhooks.pollMs]).toEqual([1000, 200, 250]);
    const short = loadConfig({
      RUNBRIDGE_SWEEP_SECONDS: '0.05',
      RUNBRIDGE_QUEUE_POLL_SECONDS: '0.02',
      RUNBRIDGE_WEBHOOK_POLL_SECONDS: '0.01',
    });
    expect([short.sweepMs, short.queuePollMs, short.webhooks.pollMs]).toEqual([50, 20, 10]);
  });

  it.each([
    ['PORT', '65536', 'PORT: Too big: expected number to be <=65535 (got "65536")'],
    [
      'RUNBRIDGE_MAX_CONCURRENT_RUNS',
      '0',
      'RUNBRIDGE_MAX_CONCURRENT_RUNS: Too small: expected number to be >=1 (got "0")',
    ],
    ['RUNBRIDGE_MAX_QUEUED_RUNS', '-1', 'RUNBRIDGE_MAX_QUEUED_RUNS: Too small: expected number to be >=0 (got "-1")'],
    [
      'RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS',
      '2.5',
      'RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: Invalid input: expected int, received number (got "2.5")',
    ],
    [
      'RUNBRIDGE_REDIS_PREFIX',
      'run bridge',
      'RUNBRIDGE_REDIS_PREFIX: use 1–64 letters, digits, ":", "_", "." or "-" (got "run bridge")',
    ],
    ['ORS_URL', 'ftp://ors.example', 'ORS_URL: Invalid URL (got "ftp://ors.example")'],
    ['RUNBRIDGE_REDIS_URL', 'http://redis:6379', 'RUNBRIDGE_REDIS_URL: Invalid URL (got "http://redis:6379")'],
  ])('refuses %s=%s with what it accepts and what it got', (variable, value, problem) => {
    expect(problemsOf({ [variable]: value })).toEqual([problem]);
  });

  it('lists every problem at once, and never repeats the value of a secret', () => {
    const problems = problemsOf({
      RUNBRIDGE_SECRET: 'too-short',
      RUNBRIDGE_MAX_STREAMS: 'many',
      RUNBRIDGE_CORS_ORIGINS: 'localhost:3000',
    });
    expect(problems).toHaveLength(3);
    expect(problems).toContain('RUNBRIDGE_SECRET: must be at least 16 characters (got 9 characters, not shown)');
    expect(problems.join('\n')).not.toContain('too-short');
  });

  it('refuses API keys set to no key at all, or a key under 16 characters, without showing any key', () => {
    for (const blank of [' , ', ',', ' ,, , ']) {
      expect(problemsOf({ RUNBRIDGE_API_KEYS: blank })).toEqual([
        expect.stringMatching(
          /^RUNBRIDGE_API_KEYS: is set but holds no key, only commas and blanks: .*unset it to serve without keys on loopback/,
        ),
      ]);
    }
    const problems = problemsOf({ RUNBRIDGE_API_KEYS: `x, ${'k'.repeat(32)}, short-key-15chr` });
    expect(problems).toEqual([
      expect.stringMatching(/^RUNBRIDGE_API_KEYS: key 1 is 1 character long and key 3 is 15; each needs at least 16/),
    ]);
    expect(problems[0]).toContain('openssl rand -hex 32');
    expect(problems[0]).not.toContain('short-key-15chr');
    // Unset, empty or blank is the keyless mode, as for every other setting.
    for (const unset of [{}, { RUNBRIDGE_API_KEYS: '' }, { RUNBRIDGE_API_KEYS: '  ' }]) {
      expect(loadConfig(unset).apiKeys).toEqual([]);
    }
    expect(loadConfig({ RUNBRIDGE_API_KEYS: ` ${'a'.repeat(16)} ,, ${'b'.repeat(40)}` }).apiKeys).toEqual([
      'a'.repeat(16),
      'b'.repeat(40),
    ]);
  });

  it('gives each key half the slots and half the queue once two or more keys share the server, unless told otherwise', () => {
    const quotas = (env: Record<string, string>) => {
      const { maxRunningPerKey, maxQueuedPerKey } = loadConfig(env);
      return { maxRunningPerKey, maxQueuedPerKey };
    };
    const unbounded = { maxRunningPerKey: Number.MAX_SAFE_INTEGER, maxQueuedPerKey: Number.MAX_SAFE_INTEGER };
    expect(quotas({})).toEqual(unbounded);
    expect(quotas({ RUNBRIDGE_API_KEYS: 'alpha-key-0123456789' })).toEqual(unbounded);
    expect(quotas({ RUNBRIDGE_API_KEYS: 'alpha-key-0123456789, beta-key-0123456789a' })).toEqual({
      maxRunningPerKey: 32,
      maxQueuedPerKey: 500,
    });
    expect(
      quotas({
        RUNBRIDGE_API_KEYS: 'alpha-key-0123456789,beta-key-0123456789a',
        RUNBRIDGE_MAX_CONCURRENT_RUNS: '1',
        RUNBRIDGE_MAX_QUEUED_RUNS: '0',
      }),
    ).toEqual({ maxRunningPerKey: 1, maxQueuedPerKey: 0 });
    expect(quotas({ RUNBRIDGE_MAX_RUNNING_PER_KEY: '3', RUNBRIDGE_MAX_QUEUED_PER_KEY: '0' })).toEqual({
      maxRunningPerKey: 3,
      maxQueuedPerKey: 0,
    });
  });

  it('defaults the model to the first vendor configured, else offline, and takes RUNBRIDGE_MODEL over both', () => {
    expect(loadConfig({}).defaultModel).toBe('offline');
    expect(loadConfig({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: ' ' }).defaultModel).toBe('anthropic');
    expect(loadConfig({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' }).defaultModel).toBe('openai');
    expect(loadConfig({ OPENAI_API_KEY: 'o', RUNBRIDGE_MODEL: 'offline' }).defaultModel).toBe('offline');
    expect(loadConfig({ VLLM_BASE_URL: 'http://gpu-1:8000' }).defaultModel).toBe('vllm');
    expect(loadConfig({ VLLM_BASE_URL: 'http://gpu-1:8000', ANTHROPIC_API_KEY: 'a' }).defaultModel).toBe('anthropic');
  });

  it('takes OpenAI for configured by OPENAI_BASE_URL alone, as the providers it enables do', () => {
    const config = loadConfig({ OPENAI_BASE_URL: 'http://127.0.0.1:8000/v1', ANTHROPIC_API_KEY: 'a' });
    expect(config.defaultModel).toBe('openai');
    expect(configuredProviders(config).map((provider) => provider.name)).toEqual([
      'offline',
      'openai',
      'openai-responses',
      'anthropic',
    ]);
  });

  it('reads the vllm settings: a root URL without its trailing slash, the parsers, and template kwargs as a JSON object', () => {
    expect(loadConfig({}).vllm).toEqual({
      baseUrl: undefined,
      apiKey: undefined,
      reasoningParser: 'qwen3',
      toolParser: 'hermes',
      chatTemplateKwargs: {},
    });
    const vllm = loadConfig({
      VLLM_BASE_URL: 'http://gpu-1:8000/',
      VLLM_REASONING_PARSER: 'DeepSeek_R1',
      VLLM_CHAT_TEMPLATE_KWARGS: '{"enable_thinking": false}',
    }).vllm;
    expect(vllm).toMatchObject({
      baseUrl: 'http://gpu-1:8000',
      reasoningParser: 'deepseek_r1',
      chatTemplateKwargs: { enable_thinking: false },
    });
    expect(problemsOf({ VLLM_CHAT_TEMPLATE_KWARGS: '[1]' })).toEqual([
      expect.stringMatching(/^VLLM_CHAT_TEMPLATE_KWARGS: must be a JSON object, not an array/),
    ]);
    expect(problemsOf({ VLLM_CHAT_TEMPLATE_KWARGS: '{enable' })).toEqual([
      expect.stringMatching(/^VLLM_CHAT_TEMPLATE_KWARGS: must be a JSON object: /),
    ]);
    expect(problemsOf({ VLLM_TOOL_PARSER: 'mistral' })).toEqual([
      expect.stringMatching(/^VLLM_TOOL_PARSER: must be one of hermes/),
    ]);
  });

  it('drops the trailing slash of ORS_URL, so paths join onto it', () => {
    expect(loadConfig({ ORS_URL: 'http://ors.example:8090//' }).orsUrl).toBe('http://ors.example:8090');
  });
});

/** The problems `loadConfig(env)` throws, or none. */
function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}
