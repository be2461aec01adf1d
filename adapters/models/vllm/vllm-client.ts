import OpenAI from 'openai';
import type { CompletionCreateParamsStreaming } from 'openai/resources/completions';
import { ModelError } from '../../../src/errors.js';
import { type SdkProviderOptions, sdkClientOptions } from '../common/sdk-client-options.js';
import type { VendorInfo } from '../common/vendor-failure.js';
import { completionChunks, type VllmCompletionChunk } from './completion-chunks.js';
import type { VllmChatMessage, VllmTool } from './vllm-message-converter.js';

/** The body of vLLM's `POST /tokenize` in its chat form (`TokenizeChatRequest`). */
export interface TokenizeChatBody {
  /** Absent: the model the server serves. */
  model?: string;
  messages: VllmChatMessage[];
  tools?: VllmTool[];
  add_generation_prompt: boolean;
  /** False: the template adds what the model needs (vLLM's default for the chat form). */
  add_special_tokens: false;
  /** Also the text of each token, to see whether the generation prompt opened a reasoning block. */
  return_token_strs?: boolean;
  chat_template_kwargs?: Record<string, unknown>;
}

/** vLLM's `TokenizeResponse`. */
export interface TokenizeAnswer {
  count: number;
  max_model_len: number;
  tokens: number[];
  token_strs?: string[] | null;
}

/** The streaming body of `POST /v1/completions`, as runbridge sends it (extra fields are vLLM's). */
export type VllmCompletionBody = Omit<CompletionCreateParamsStreaming, 'prompt' | 'model'> & {
  model?: string;
  prompt: number[];
  return_token_ids: true;
  [key: string]: unknown;
};

/**
 * The HTTP calls the `vllm` provider makes, over the `openai` SDK (its transport, retries and error
 * classes): `POST /tokenize` at the server's root and `POST /v1/completions`, streamed.
 */
export class VllmClient {
  readonly #sdk: OpenAI;
  readonly #tokenizeUrl: string;
  readonly #vendor: VendorInfo;

  constructor(root: string, options: Omit<SdkProviderOptions, 'baseUrl'>, vendor: VendorInfo) {
    this.#sdk = new OpenAI(sdkClientOptions({ ...options, baseUrl: `${root}/v1` }));
    // An absolute URL: `/tokenize` lives beside `/v1`, not under it.
    this.#tokenizeUrl = `${root}/tokenize`;
    this.#vendor = vendor;
  }

  /** The ids the server's tokenizer and chat template give `body`. */
  async tokenize(body: TokenizeChatBody, signal: AbortSignal | undefined): Promise<TokenizeAnswer> {
    const answer: unknown = await this.#sdk.post(this.#tokenizeUrl, signal === undefined ? { body } : { body, signal });
    if (!isTokenizeAnswer(answer)) {
      throw new ModelError(
        `${this.#vendor.name} answered /tokenize without token ids and max_model_len: is it a vLLM server? ` +
          'Check VLLM_BASE_URL (the server root, without /v1).',
        { code: 'model_error', details: { vendor: this.#vendor.name } },
      );
    }
    return answer;
  }

  /**
   * Starts one streaming generation; resolves once the stream has begun. The SDK sends it (its retries
   * and error answers as for every provider), and the stream is read with the bridge's SSE reader:
   * the SDK's own reader cost four times its CPU over a turn's chunks (`bench/`, benchmark 15).
   */
  async completions(body: VllmCompletionBody, signal: AbortSignal): Promise<AsyncIterable<VllmCompletionChunk>> {
    const params = body as unknown as CompletionCreateParamsStreaming;
    const response = await this.#sdk.completions.create(params, { signal }).asResponse();
    if (response.body === null) {
      throw new ModelError(`${this.#vendor.name} answered a streaming completion without a body.`, {
        code: 'model_stream_interrupted',
        details: { vendor: this.#vendor.name },
      });
    }
    return completionChunks(response.body, this.#vendor);
  }
}

function isTokenizeAnswer(value: unknown): value is TokenizeAnswer {
  if (typeof value !== 'object' || value === null) return false;
  const { tokens, max_model_len: maxModelLen } = value as Record<string, unknown>;
  return (
    Array.isArray(tokens) &&
    tokens.every((token) => Number.isInteger(token)) &&
    typeof maxModelLen === 'number' &&
    maxModelLen > 0
  );
}
