import { createNodeHttp } from '../../../src/http-client/node-http.js';
import { nodeHttpFetch } from '../../../src/http-client/node-http-fetch.js';
import { MODEL_ANSWER_CAPS, type ModelAnswerCaps } from '../../../src/protocol/model-answer-caps.js';

/**
 * The options every SDK-backed provider takes (`openai`, `openai-responses`, `anthropic`): how to
 * reach the vendor, and what the provider lists and defaults to.
 */
export interface SdkProviderOptions {
  /** The key sent to the vendor (or the compatible server) with every request. */
  apiKey: string;
  /** Another endpoint (an OpenAI-compatible server, a proxy, a gateway); the vendor's own when absent. */
  baseUrl?: string;
  /** Retries of the SDK for connection failures and 408/409/429/5xx answers; the SDK's default (2) when absent. */
  maxRetries?: number;
  /** Model names for `GET /v1/models` besides the default one. */
  listedModels?: readonly string[];
  /** The `fetch` the SDK uses (tests, proxies); one on `node:http` when absent (`src/http-client`). */
  fetch?: typeof globalThis.fetch;
  /**
   * How much of each answer the `node:http` fetch reads (not a `fetch` of your own);
   * {@link MODEL_ANSWER_CAPS} when absent.
   */
  answerCaps?: ModelAnswerCaps;
  /** The model used for a bare `provider` reference; the provider's own default when absent. */
  defaultModel?: string;
}

/**
 * The constructor options of the `openai` and `@anthropic-ai/sdk` clients (they share these names)
 * for `options`. The key is always passed, so an SDK never falls back to credentials from the
 * environment or its config files; what is absent is left to the SDK's defaults. The SDKs' own
 * console logging is off: it prints what the vendor sent (a stream line it could not parse, whole),
 * past the bridge's log and its redaction (docs/security.md).
 */
export function sdkClientOptions(options: SdkProviderOptions): {
  apiKey: string;
  baseURL?: string;
  maxRetries?: number;
  fetch: typeof globalThis.fetch;
  logLevel: 'off';
} {
  return {
    apiKey: options.apiKey,
    ...(options.baseUrl === undefined ? {} : { baseURL: options.baseUrl }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    fetch: options.fetch ?? nodeHttpFetch(createNodeHttp(), options.answerCaps ?? MODEL_ANSWER_CAPS),
    logLevel: 'off',
  };
}
