import { APIConnectionError, APIError } from 'openai';
import type { ModelError } from '../../../src/errors.js';
import { sdkErrorToModelError, type VendorInfo } from './vendor-failure.js';

/** How OpenAI and OpenAI-compatible servers are named in error messages. */
export const OPENAI_VENDOR: VendorInfo = { name: 'OpenAI', apiKeyVariable: 'OPENAI_API_KEY' };

/**
 * An error thrown by the `openai` SDK → `ModelError` (see {@link sdkErrorToModelError}). Used by the
 * Chat Completions and the Responses adapters, which share the SDK; an in-stream error's message
 * and type are read from the `error` object the server sent.
 */
export function openAiErrorToModelError(
  error: unknown,
  phase: 'request' | 'stream',
  vendor: VendorInfo = OPENAI_VENDOR,
): ModelError {
  const seen =
    error instanceof APIConnectionError
      ? 'connection'
      : error instanceof APIError
        ? {
            status: error.status,
            vendorType: stringOr(error.type) ?? stringOr(error.code),
            vendorMessage: messageOf(error.error) ?? error.message,
            requestId: error.requestID ?? undefined,
          }
        : undefined;
  return sdkErrorToModelError(error, phase, vendor, seen);
}

function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('message' in body)) return undefined;
  return stringOr(body.message);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
