import { APIConnectionError, APIError } from 'openai';
import type { ModelError } from '../../../src/errors.js';
import { vendorFailureToModelError, type VendorInfo } from './vendor-failure.js';

/** How OpenAI and OpenAI-compatible servers are named in error messages. */
export const OPENAI_VENDOR: VendorInfo = { name: 'OpenAI', apiKeyVariable: 'OPENAI_API_KEY' };

/**
 * An error thrown by the `openai` SDK → `ModelError`. An `APIError` with a status is the answer the
 * SDK gave up retrying on; one without a status came from an `error` object inside the stream; a
 * connection error is no answer at all; any other error while the stream is read (a socket closed
 * mid-body, a frame cut in half) is a stream that broke off. Used by the Chat Completions and the
 * Responses adapters, which share the SDK.
 */
export function openAiErrorToModelError(error: unknown, phase: 'request' | 'stream', vendor: VendorInfo = OPENAI_VENDOR): ModelError {
  if (error instanceof APIConnectionError) {
    return vendorFailureToModelError({ vendor, kind: phase === 'stream' ? 'stream-cut' : 'connection', vendorMessage: error.message, cause: error });
  }
  if (error instanceof APIError) {
    const body: unknown = error.error;
    const vendorMessage = messageOf(body) ?? error.message;
    const vendorType = stringOr(error.type) ?? stringOr(error.code);
    return vendorFailureToModelError({
      vendor,
      kind: error.status === undefined ? 'in-stream' : 'http',
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(vendorType === undefined ? {} : { vendorType }),
      vendorMessage,
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

function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('message' in body)) return undefined;
  return stringOr(body.message);
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
