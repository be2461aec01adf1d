import { ModelError, type ModelErrorCode } from '../../../src/errors.js';
import { BodyCapError } from '../../../src/http-client/body-caps.js';
import { cutMessage } from '../../../src/protocol/cut-message.js';

/** The model codes a vendor's failure maps to: all but the bridge's own cap on a turn's output and its context check. */
type VendorFailureCode = Exclude<ModelErrorCode, 'model_output_too_large' | 'model_context_exceeded'>;

/** Who failed, for messages: the vendor's name and the variable that holds its key. */
export interface VendorInfo {
  /** Shown at the start of messages, e.g. `OpenAI`, `Anthropic`, `The OpenAI-compatible server at …`. */
  name: string;
  /** The environment variable an operator fixes when the key is refused, e.g. `OPENAI_API_KEY`. */
  apiKeyVariable: string;
}

/**
 * A vendor failure, described without vendor types. `kind` says where it happened: `http` — the
 * vendor answered an error status (after the SDK's own retries); `in-stream` — an error event
 * inside a stream that had started; `connection` — no answer at all (after retries); `stream-cut` —
 * the stream broke off or ended before its last event; `other` — anything else (a `model_error`).
 */
export interface VendorFailure {
  /** Who failed. */
  vendor: VendorInfo;
  /** Where it failed (see above). */
  kind: 'http' | 'in-stream' | 'connection' | 'stream-cut' | 'other';
  /** The HTTP status of an `http` failure. */
  status?: number;
  /** The vendor's own error type or code (`rate_limit_error`, `server_error`, `invalid_api_key`, …). */
  vendorType?: string;
  /** The vendor's message, passed on so the operator sees what the vendor said. */
  vendorMessage?: string;
  /** The vendor's request id, for a support ticket. */
  requestId?: string;
  /** The SDK's error (or the event), kept as the `ModelError`'s `cause`. */
  cause: unknown;
}

/**
 * The `ModelError` code for an HTTP status the vendor answered with once its SDK stopped retrying:
 * 401/403 are credentials; 408, 409, 429 and 5xx are the vendor being busy or down (the SDK
 * retries exactly these); any other 4xx is a request the vendor will never accept.
 */
export function modelErrorCodeForStatus(status: number): VendorFailureCode {
  if (status === 401 || status === 403) return 'model_auth';
  if (status === 408 || status === 409 || status === 429 || status >= 500) return 'model_unavailable';
  if (status >= 400) return 'model_bad_request';
  return 'model_error';
}

/**
 * The `ModelError` code for an error a vendor reports inside a stream, from its type or code
 * (`overloaded_error`, `rate_limit_exceeded`, `invalid_request_error`, …); unknown ones are `model_error`.
 */
export function modelErrorCodeForVendorType(vendorType: string | undefined): VendorFailureCode {
  const type = (vendorType ?? '').toLowerCase();
  if (/auth|permission|api_key/.test(type)) return 'model_auth';
  if (/overloaded|rate_limit|server_error|api_error|timeout|unavailable|capacity/.test(type))
    return 'model_unavailable';
  if (/invalid|bad_request|context_length|not_found/.test(type)) return 'model_bad_request';
  return 'model_error';
}

/**
 * A `ModelError` whose code and message say what failed and what the operator can do about it. What the
 * vendor said is quoted up to a few KB (`cutMessage`): a server may send megabytes of it.
 */
export function vendorFailureToModelError(failure: VendorFailure): ModelError {
  const { vendor } = failure;
  const code = codeFor(failure);
  const said =
    failure.vendorMessage === undefined || failure.vendorMessage === '' ? '' : `: ${cutMessage(failure.vendorMessage)}`;
  const status = failure.status === undefined ? '' : ` (HTTP ${failure.status})`;
  const messages: Record<VendorFailureCode, string> = {
    model_auth:
      `${vendor.name} refused the credentials${status}${said}. ` +
      `Check ${vendor.apiKeyVariable} and that the key may use this model.`,
    model_unavailable:
      failure.kind === 'connection'
        ? `${vendor.name} could not be reached after the client's retries${said}. Check the network and the base URL, then retry.`
        : failure.kind === 'in-stream'
          ? `${vendor.name} broke off the turn as busy or unavailable${said}. Retry later or lower the request rate.`
          : `${vendor.name} is busy or unavailable${status}${said}, also after the client's retries. Retry later or lower the request rate.`,
    model_bad_request:
      `${vendor.name} rejected the request${status}${said}. ` +
      'Check the model name, the sampling settings and extra_body.',
    model_stream_interrupted:
      `${vendor.name} stopped streaming before the turn was complete${said}. ` +
      'The turn is incomplete; retry the run.',
    model_error: `${vendor.name} failed${status}${said}. Retry the run; if it keeps failing, check the vendor's status.`,
  };
  return new ModelError(messages[code], {
    code,
    cause: failure.cause,
    details: {
      vendor: vendor.name,
      ...(failure.status === undefined ? {} : { status: failure.status }),
      ...(failure.vendorType === undefined ? {} : { vendor_type: failure.vendorType }),
      ...(failure.requestId === undefined ? {} : { request_id: failure.requestId }),
    },
  });
}

function codeFor(failure: VendorFailure): VendorFailureCode {
  switch (failure.kind) {
    case 'http':
      return failure.status === undefined ? 'model_error' : modelErrorCodeForStatus(failure.status);
    case 'in-stream':
      return modelErrorCodeForVendorType(failure.vendorType);
    case 'connection':
      return 'model_unavailable';
    case 'stream-cut':
      return 'model_stream_interrupted';
    case 'other':
      return 'model_error';
  }
}

/** What an SDK's API error says, read by the adapter that knows that SDK's error classes. */
export interface SdkApiError {
  /** The HTTP status; absent for an `error` event inside a stream that had started. */
  status: number | undefined;
  vendorType: string | undefined;
  vendorMessage: string;
  requestId: string | undefined;
}

/**
 * An error thrown by an official SDK client → `ModelError`, once the adapter has said what it is
 * (`seen`): a connection error is no answer at all (or, while streaming, a stream that broke off);
 * an API error with a status is the answer the SDK gave up retrying on, one without came from an
 * `error` event inside the stream; any other error while the stream is read (a socket closed
 * mid-body, a frame cut in half) is a stream that broke off.
 */
export function sdkErrorToModelError(
  error: unknown,
  phase: 'request' | 'stream',
  vendor: VendorInfo,
  seen: 'connection' | SdkApiError | undefined,
): ModelError {
  const capped = bodyCapErrorIn(error);
  if (capped) return answerTooLarge(vendor, capped, error);
  if (typeof seen === 'object') {
    return vendorFailureToModelError({
      vendor,
      kind: seen.status === undefined ? 'in-stream' : 'http',
      ...(seen.status === undefined ? {} : { status: seen.status }),
      ...(seen.vendorType ? { vendorType: seen.vendorType } : {}),
      vendorMessage: seen.vendorMessage,
      ...(seen.requestId ? { requestId: seen.requestId } : {}),
      cause: error,
    });
  }
  const kind = phase === 'stream' ? 'stream-cut' : seen === 'connection' ? 'connection' : 'other';
  return vendorFailureToModelError({
    vendor,
    kind,
    vendorMessage: error instanceof Error ? error.message : String(error),
    cause: error,
  });
}

/** The setting behind each cap of the transport under the SDKs. */
const CAP_SETTINGS = { event: 'RUNBRIDGE_MODEL_MAX_EVENT_BYTES', answer: 'RUNBRIDGE_MODEL_MAX_ANSWER_BYTES' } as const;

/**
 * The `model_error` of an answer the transport stopped reading at one of its caps (docs/security.md): not
 * retried by the SDK, which had begun to read the stream, and not worth a retry of the run either.
 */
function answerTooLarge(vendor: VendorInfo, capped: BodyCapError, cause: unknown): ModelError {
  const setting = CAP_SETTINGS[capped.cap];
  return new ModelError(
    `${vendor.name} sent more than the bridge reads: ${capped.message} (${setting}), so the bridge stopped ` +
      'reading and closed the connection. Check the server; raise the setting only if answers this large are expected.',
    { code: 'model_error', cause, details: { vendor: vendor.name, limit: setting, bytes: capped.limit } },
  );
}

/** The {@link BodyCapError} `error` is, or was caused by (an SDK may wrap what the body's reading threw). */
function bodyCapErrorIn(error: unknown): BodyCapError | undefined {
  for (let at = error, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    if (at instanceof BodyCapError) return at;
  }
  return undefined;
}
