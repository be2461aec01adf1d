import { describe, expect, it } from 'vitest';
import { useTestBridge } from '../support/start-test-bridge.js';

/** What a 400 `unknown_model` says, so the caller knows what to write or set (docs/models.md). */
describe('an unknown model', () => {
  const bridge = useTestBridge();

  async function messageFor(path: string, body: Record<string, unknown>): Promise<string> {
    const response = await bridge.fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('unknown_model');
    return error.message;
  }

  it('named without its provider suggests the provider:name it probably meant, and how to enable it', async () => {
    const chat = await messageFor('/v1/chat/completions', {
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(chat).toBe(
      '"gpt-4o" is not a model provider: models are named provider:name. Did you mean "openai:gpt-4o" ' +
        '(set OPENAI_API_KEY, or OPENAI_BASE_URL for an OpenAI-compatible server)? Providers here: offline.',
    );
    expect(await messageFor('/v1/runs', { model: 'claude-sonnet-4-5' })).toContain(
      'Did you mean "anthropic:claude-sonnet-4-5" (set ANTHROPIC_API_KEY)?',
    );
  });

  it('named with a dot, as OpenAI names them (gpt-4.1-mini), gets the same suggestion rather than a shape error', async () => {
    const chat = { model: 'gpt-4.1-mini', messages: [{ role: 'user', content: 'hi' }] };
    for (const message of [
      await messageFor('/v1/runs', { model: 'gpt-4.1-mini' }),
      await messageFor('/v1/chat/completions', chat),
    ]) {
      expect(message).toContain('Did you mean "openai:gpt-4.1-mini"');
    }
  });

  it('of a provider that is not configured names the setting that enables that provider', async () => {
    const message = await messageFor('/v1/runs', { model: 'anthropic:claude-sonnet-4-5' });
    expect(message).toBe(
      'The model provider "anthropic" is not configured: set ANTHROPIC_API_KEY. Providers here: offline.',
    );
    expect(message).not.toContain('OPENAI_API_KEY');
    expect(await messageFor('/v1/runs', { model: 'vllm:Qwen/Qwen3-8B' })).toBe(
      'The model provider "vllm" is not configured: set VLLM_BASE_URL to the root of a vLLM server (e.g. http://gpu-1:8000). Providers here: offline.',
    );
  });

  it('of a provider nobody knows lists the ones there are', async () => {
    expect(await messageFor('/v1/runs', { model: 'nope:x' })).toBe(
      'Unknown model provider "nope". Providers here: offline.',
    );
  });
});
