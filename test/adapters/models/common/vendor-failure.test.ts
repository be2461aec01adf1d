import { describe, expect, it } from 'vitest';
import {
  modelErrorCodeForStatus,
  modelErrorCodeForVendorType,
  vendorFailureToModelError,
} from '../../../../adapters/models/common/vendor-failure.js';
import { ModelError } from '../../../../src/errors.js';

const vendor = { name: 'Acme', apiKeyVariable: 'ACME_API_KEY' };

describe('modelErrorCodeForStatus', () => {
  it.each([
    [401, 'model_auth'],
    [403, 'model_auth'],
    [400, 'model_bad_request'],
    [404, 'model_bad_request'],
    [422, 'model_bad_request'],
    [408, 'model_unavailable'],
    [409, 'model_unavailable'],
    [429, 'model_unavailable'],
    [500, 'model_unavailable'],
    [529, 'model_unavailable'],
  ] as const)('maps HTTP %i to %s', (status, code) => {
    expect(modelErrorCodeForStatus(status)).toBe(code);
  });
});

describe('modelErrorCodeForVendorType', () => {
  it.each([
    ['overloaded_error', 'model_unavailable'],
    ['rate_limit_exceeded', 'model_unavailable'],
    ['server_error', 'model_unavailable'],
    ['api_error', 'model_unavailable'],
    ['invalid_request_error', 'model_bad_request'],
    ['context_length_exceeded', 'model_bad_request'],
    ['authentication_error', 'model_auth'],
    ['permission_error', 'model_auth'],
    ['something_else', 'model_error'],
    [undefined, 'model_error'],
  ] as const)('maps %s to %s', (type, code) => {
    expect(modelErrorCodeForVendorType(type)).toBe(code);
  });
});

describe('vendorFailureToModelError', () => {
  it('says what the vendor said and what to check, and keeps the cause and details', () => {
    const cause = new Error('boom');
    const error = vendorFailureToModelError({
      vendor,
      kind: 'http',
      status: 401,
      vendorMessage: 'bad key',
      vendorType: 'auth',
      requestId: 'req_1',
      cause,
    });
    expect(error).toBeInstanceOf(ModelError);
    expect(error.code).toBe('model_auth');
    expect(error.message).toBe(
      'Acme refused the credentials (HTTP 401): bad key. Check ACME_API_KEY and that the key may use this model.',
    );
    expect(error.cause).toBe(cause);
    expect(error.details).toEqual({ vendor: 'Acme', status: 401, vendor_type: 'auth', request_id: 'req_1' });
  });

  it('tells a connection failure from a busy vendor', () => {
    expect(vendorFailureToModelError({ vendor, kind: 'connection', cause: undefined }).message).toMatch(
      /could not be reached/,
    );
    expect(vendorFailureToModelError({ vendor, kind: 'http', status: 503, cause: undefined }).message).toMatch(
      /busy or unavailable \(HTTP 503\)/,
    );
  });

  it('calls a stream that broke off model_stream_interrupted', () => {
    expect(
      vendorFailureToModelError({ vendor, kind: 'stream-cut', vendorMessage: 'terminated', cause: undefined }),
    ).toMatchObject({
      code: 'model_stream_interrupted',
      message: expect.stringMatching(/^Acme stopped streaming before the turn was complete: terminated\./),
    });
  });
});
