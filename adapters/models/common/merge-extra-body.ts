import { ModelError } from '../../../src/errors.js';
import type { VendorInfo } from './vendor-failure.js';

/**
 * `params` with the caller's `extra_body` laid over it, key by key and verbatim (vLLM
 * `return_token_ids`, `logprobs`, Anthropic `thinking`, …) — the SDKs send keys they do not know
 * as they are, so this is how they reach the vendor. A key the adapter also sets is replaced by the
 * caller's value (the caller asked for it explicitly), except the `reserved` keys the bridge needs
 * to stay in control of the call (`model`, `messages`, `stream`, …): naming one of those throws a
 * `model_bad_request` `ModelError` that says which key to remove.
 */
export function mergeExtraBody<T extends object>(
  params: T,
  extraBody: Readonly<Record<string, unknown>> | undefined,
  reserved: readonly string[],
  vendor: VendorInfo,
): T {
  if (extraBody === undefined) return params;
  const clash = Object.keys(extraBody).filter((key) => reserved.includes(key));
  if (clash.length > 0) {
    throw new ModelError(
      `sampling.extra_body sets ${clash.map((key) => `"${key}"`).join(', ')}, which the bridge sets itself for ${vendor.name} ` +
        `(reserved: ${reserved.join(', ')}). Remove ${clash.length === 1 ? 'it' : 'them'} from extra_body.`,
      { code: 'model_bad_request', details: { vendor: vendor.name, reserved_keys: clash } },
    );
  }
  return { ...params, ...extraBody };
}
