import { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import type { ModelError } from '../../../src/errors.js';
import { sdkErrorToModelError, type VendorInfo } from '../common/vendor-failure.js';

/** How Anthropic is named in error messages. */
export const ANTHROPIC_VENDOR: VendorInfo = { name: 'Anthropic', apiKeyVariable: 'ANTHROPIC_API_KEY' };

/**
 * An error thrown by the `@anthropic-ai/sdk` client → `ModelError` (see {@link sdkErrorToModelError}).
 * An `APIError` with a status comes after the SDK's retries (429, 529 `overloaded_error` and other
 * 5xx are retried first); one without is an `error` event inside the stream (`overloaded_error`
 * mid-stream is common).
 */
export function anthropicErrorToModelError(error: unknown, phase: 'request' | 'stream'): ModelError {
  const seen =
    error instanceof APIConnectionError
      ? 'connection'
      : error instanceof APIError
        ? {
            status: error.status,
            vendorType: error.type ?? undefined,
            vendorMessage: error.apiMessage ?? error.message,
            requestId: error.requestID ?? undefined,
          }
        : undefined;
  return sdkErrorToModelError(error, phase, ANTHROPIC_VENDOR, seen);
}
