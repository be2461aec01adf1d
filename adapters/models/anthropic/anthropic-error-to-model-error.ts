import { APIConnectionError, APIError } from '@anthropic-ai/sdk';
import type { ModelError } from '../../../src/errors.js';
import { vendorFailureToModelError, type VendorInfo } from '../shared/vendor-failure.js';

/** How Anthropic is named in error messages. */
export const ANTHROPIC_VENDOR: VendorInfo = { name: 'Anthropic', apiKeyVariable: 'ANTHROPIC_API_KEY' };

/**
 * An error thrown by the `@anthropic-ai/sdk` client → `ModelError`. An `APIError` with a status is
 * the answer the SDK gave up retrying on (429, 529 `overloaded_error` and other 5xx are retried
 * first); one without a status is an `error` event inside the stream (`overloaded_error` mid-stream
 * is common); a connection error is no answer at all; any other error while the stream is read is a
 * stream that broke off.
 */
export function anthropicErrorToModelError(error: unknown, phase: 'request' | 'stream'): ModelError {
  const vendor = ANTHROPIC_VENDOR;
  if (error instanceof APIConnectionError) {
    return vendorFailureToModelError({ vendor, kind: phase === 'stream' ? 'stream-cut' : 'connection', vendorMessage: error.message, cause: error });
  }
  if (error instanceof APIError) {
    return vendorFailureToModelError({
      vendor,
      kind: error.status === undefined ? 'in-stream' : 'http',
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.type ? { vendorType: error.type } : {}),
      vendorMessage: error.apiMessage ?? error.message,
      ...(error.requestID ? { requestId: error.requestID } : {}),
      cause: error,
    });
  }
  return vendorFailureToModelError({
    vendor,
    kind: phase === 'stream' ? 'stream-cut' : 'other',
    vendorMessage: error instanceof Error ? error.message : String(error),
    cause: error,
  });
}
