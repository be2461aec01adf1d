import { createAnthropicProvider } from '../../../../adapters/models/anthropic/anthropic-provider.js';
import { createOpenAiChatProvider } from '../../../../adapters/models/openai-chat/openai-chat-provider.js';
import { createOpenAiResponsesProvider } from '../../../../adapters/models/openai-responses/openai-responses-provider.js';
import type { ModelProvider } from '../../../../src/models/model.js';

/** What an error body says, in the vendor's own words. */
export interface VendorError {
  /** The vendor's error type (`invalid_request_error`, `overloaded_error`, …). */
  type: string;
  message: string;
  /** OpenAI's machine code beside the type (`invalid_api_key`, `context_length_exceeded`), when it sends one. */
  code?: string;
}

/**
 * One SDK-backed vendor adapter as the model contract suite drives it: its real SDK client pointed
 * at the fake vendor server, and what that vendor's wire looks like.
 */
export interface VendorAdapter {
  /** The provider's name, as a run names it. */
  name: string;
  /** The route its SDK streams a turn from on the fake server. */
  route: string;
  /** A model name the provider accepts. */
  model: string;
  /** The environment variable its refusals of credentials name. */
  keyVariable: string;
  /** The provider on `baseUrl` (the fake server's URL) with `maxRetries` retries. */
  create(baseUrl: string, maxRetries: number): ModelProvider;
  /** The vendor's JSON error body. */
  errorBody(error: VendorError): unknown;
  /** Error types the vendor sends. */
  types: {
    auth: VendorError;
    badRequest: VendorError;
    contextExceeded: VendorError;
    rateLimited: VendorError;
    server: VendorError;
    timeout: VendorError;
  };
  /** A whole text turn (`finish` with `stop`), and how many of its frames come before its first text delta is complete. */
  text: { fixture: string; framesToFirstText: number };
  /** A turn with a tool call, and a frame count that cuts it in the middle of the call's arguments. */
  toolCallCut: { fixture: string; frames: number };
}

const openAiError = ({ type, message, code }: VendorError) => ({
  error: { message, type, param: null, code: code ?? null },
});

const OPENAI_TYPES: VendorAdapter['types'] = {
  auth: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: sk-test.' },
  badRequest: { type: 'invalid_request_error', message: 'Unrecognized request argument supplied: frobnicate' },
  contextExceeded: {
    type: 'invalid_request_error',
    code: 'context_length_exceeded',
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
  },
  rateLimited: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached.' },
  server: { type: 'server_error', message: 'The server had an error while processing your request.' },
  timeout: { type: 'timeout', message: 'Request timed out.' },
};

/** The three adapters over a vendor SDK; `vllm` speaks token ids to its own routes and has its own tests. */
export const VENDOR_ADAPTERS: VendorAdapter[] = [
  {
    name: 'openai',
    route: 'POST /v1/chat/completions',
    model: 'gpt-4.1-mini',
    keyVariable: 'OPENAI_API_KEY',
    create: (baseUrl, maxRetries) =>
      createOpenAiChatProvider({ apiKey: 'sk-test', baseUrl: `${baseUrl}/v1`, maxRetries }),
    errorBody: openAiError,
    types: OPENAI_TYPES,
    text: { fixture: 'openai-chat/text.sse', framesToFirstText: 2 },
    toolCallCut: { fixture: 'openai-chat/parallel-tool-calls.sse', frames: 4 },
  },
  {
    name: 'openai-responses',
    route: 'POST /v1/responses',
    model: 'gpt-5-mini',
    keyVariable: 'OPENAI_API_KEY',
    create: (baseUrl, maxRetries) =>
      createOpenAiResponsesProvider({ apiKey: 'sk-test', baseUrl: `${baseUrl}/v1`, maxRetries }),
    errorBody: openAiError,
    types: OPENAI_TYPES,
    text: { fixture: 'openai-responses/text.sse', framesToFirstText: 5 },
    toolCallCut: { fixture: 'openai-responses/reasoning-function-calls.sse', frames: 19 },
  },
  {
    name: 'anthropic',
    route: 'POST /v1/messages',
    model: 'claude-sonnet-5-5',
    keyVariable: 'ANTHROPIC_API_KEY',
    create: (baseUrl, maxRetries) => createAnthropicProvider({ apiKey: 'sk-ant-test', baseUrl, maxRetries }),
    errorBody: ({ type, message }) => ({ type: 'error', error: { type, message } }),
    types: {
      auth: { type: 'authentication_error', message: 'invalid x-api-key' },
      badRequest: {
        type: 'invalid_request_error',
        message: 'max_tokens: 999999 > 64000, which is the maximum allowed',
      },
      contextExceeded: { type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' },
      rateLimited: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit.' },
      server: { type: 'overloaded_error', message: 'Overloaded' },
      timeout: { type: 'timeout_error', message: 'Request timed out.' },
    },
    text: { fixture: 'anthropic/text.sse', framesToFirstText: 4 },
    toolCallCut: { fixture: 'anthropic/thinking-tool-use.sse', frames: 13 },
  },
];
