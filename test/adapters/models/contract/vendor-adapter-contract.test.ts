import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../../../src/errors.js';
import type { Message, ToolDefinition } from '../../../../src/models/conversation.js';
import type { ModelProvider, ModelRequest } from '../../../../src/models/model.js';
import { type FakeVendorServer, startFakeVendorServer } from '../../../support/fake-vendor-server.js';
import { collectFailure, collectParts } from '../common/collect-parts.js';
import { VENDOR_ADAPTERS, type VendorError } from './vendor-adapters.js';

/**
 * What every adapter over a vendor SDK does with what its vendor answers (docs/models.md): the real SDK
 * client against the fake vendor server, retrying what may pass (429, 408, 5xx) exactly as often as it
 * is told, and turning each failure into the same typed ModelError, whichever vendor sent it.
 */

/** Retries each provider is made with: every retried failure is seen 1 + this many times. */
const MAX_RETRIES = 2;
/** Retry-After in milliseconds, which both SDKs read before Retry-After: a test need not wait a second. */
const FAST_RETRY = { 'retry-after-ms': '1' };

const tools: ToolDefinition[] = [
  {
    name: 'lookup',
    description: 'Find a book by title.',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
  },
];
const messages: Message[] = [
  { role: 'system', content: 'You are a librarian.' },
  { role: 'user', content: [{ type: 'text', text: 'Find Dune.' }] },
];

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return { messages, tools, sampling: {}, signal: new AbortController().signal, ...overrides };
}

describe.each(VENDOR_ADAPTERS)('the $name adapter', (adapter) => {
  let vendor: FakeVendorServer;
  let provider: ModelProvider;
  const turn = (overrides: Partial<ModelRequest> = {}) => provider.create(adapter.model).stream(request(overrides));
  /** Scripts every answer to be `status` with the vendor's error body. */
  const answer = (status: number, error: VendorError, headers: Record<string, string> = {}) =>
    vendor.reply(adapter.route, { kind: 'json', status, body: adapter.errorBody(error), headers });
  /** Scripts a replay of `fixture` that stops after `frames` frames and then does `then`. */
  const stopping = (fixture: string, frames: number, then: 'end' | 'cut' | 'hang') =>
    vendor.reply(adapter.route, { kind: 'stream', fixture, stopAfterFrames: frames, then });

  beforeEach(async () => {
    vendor = await startFakeVendorServer();
    provider = adapter.create(vendor.url, MAX_RETRIES);
  });
  afterEach(async () => {
    await vendor.close();
  });

  describe('retries', () => {
    it.each([
      ['a 429 that carries Retry-After', 429, 'rateLimited', { 'retry-after': '1' }],
      ['a 500', 500, 'server', {}],
      ['a 503', 503, 'server', {}],
      ['a 529', 529, 'server', {}],
    ] as const)('%s, and then streams the turn', async (_, status, kind, headers) => {
      vendor.reply(
        adapter.route,
        { kind: 'json', status, body: adapter.errorBody(adapter.types[kind]), headers: { ...headers, ...FAST_RETRY } },
        { kind: 'stream', fixture: adapter.text.fixture },
      );
      const parts = await collectParts(turn());
      expect(parts.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
      expect(vendor.requests).toHaveLength(2);
    });
  });

  describe('maps', () => {
    it('401 to model_auth without retrying, naming the key to check', async () => {
      answer(401, adapter.types.auth);
      const { error } = await collectFailure(turn());
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({ code: 'model_auth', details: { status: 401 } });
      expect((error as Error).message).toContain(adapter.types.auth.message);
      expect((error as Error).message).toContain(adapter.keyVariable);
      expect(vendor.requests).toHaveLength(1);
    });

    it.each([
      ['a bad request', 'badRequest'],
      ['a prompt past the context', 'contextExceeded'],
    ] as const)('%s (400) to model_bad_request without retrying, with what the vendor said', async (_, kind) => {
      answer(400, adapter.types[kind]);
      const { error } = await collectFailure(turn());
      expect(error).toMatchObject({ code: 'model_bad_request', details: { status: 400 } });
      expect((error as Error).message).toContain(adapter.types[kind].message);
      expect(vendor.requests).toHaveLength(1);
    });

    it.each([
      ['a rate limit', 429, 'rateLimited'],
      ['a request timeout', 408, 'timeout'],
      ['a server error', 500, 'server'],
      ['a server error', 503, 'server'],
      ['a server error', 529, 'server'],
    ] as const)(
      '%s (%i) that lasts to model_unavailable after exactly 1 + maxRetries requests',
      async (_, status, kind) => {
        answer(status, adapter.types[kind], FAST_RETRY);
        const { error } = await collectFailure(turn());
        expect(error).toMatchObject({ code: 'model_unavailable', details: { status } });
        expect(vendor.requests).toHaveLength(1 + MAX_RETRIES);
      },
    );

    it('an unreachable server to model_unavailable', async () => {
      const gone = await startFakeVendorServer();
      await gone.close();
      const { error } = await collectFailure(adapter.create(gone.url, 0).create(adapter.model).stream(request()));
      expect(error).toMatchObject({ code: 'model_unavailable' });
      expect((error as Error).message).toMatch(/could not be reached/);
    });

    it('a stream cut in the middle of a tool call to model_stream_interrupted, without the partial call or a retry', async () => {
      stopping(adapter.toolCallCut.fixture, adapter.toolCallCut.frames, 'cut');
      const { error, parts } = await collectFailure(turn());
      expect(error).toMatchObject({ code: 'model_stream_interrupted' });
      expect(parts.filter((part) => part.type === 'tool-call')).toEqual([]);
      expect(vendor.requests).toHaveLength(1);
    });

    it('a stream that ends cleanly before the turn is complete to model_stream_interrupted', async () => {
      stopping(adapter.text.fixture, adapter.text.framesToFirstText, 'end');
      const { error, parts } = await collectFailure(turn());
      expect(error).toMatchObject({ code: 'model_stream_interrupted' });
      expect(parts.some((part) => part.type === 'text-delta')).toBe(true);
    });
  });

  describe('stops with the abort reason', () => {
    it('when aborted mid-stream, while the vendor is silent', async () => {
      stopping(adapter.text.fixture, adapter.text.framesToFirstText, 'hang');
      const controller = new AbortController();
      const reason = new Error('run cancelled by the client');
      const seen: string[] = [];
      const failure = (async () => {
        try {
          for await (const part of turn({ signal: controller.signal })) {
            seen.push(part.type);
            if (part.type === 'text-delta') controller.abort(reason);
          }
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(await failure).toBe(reason);
      expect(seen.filter((type) => type === 'text-delta')).toHaveLength(1);
    });

    it('when aborted before the vendor answers', async () => {
      vendor.reply(adapter.route, { kind: 'hang' });
      const controller = new AbortController();
      const reason = new Error('shutdown');
      const failure = collectFailure(turn({ signal: controller.signal }));
      await vendor.waitForRequests(1);
      controller.abort(reason);
      expect((await failure).error).toBe(reason);
    });

    it('without a request when the signal is already aborted', async () => {
      const reason = new Error('too late');
      const { error } = await collectFailure(turn({ signal: AbortSignal.abort(reason) }));
      expect(error).toBe(reason);
      expect(vendor.requests).toHaveLength(0);
    });
  });
});
