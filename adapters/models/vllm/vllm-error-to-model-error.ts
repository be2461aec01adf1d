import { ModelError } from '../../../src/errors.js';
import { openAiErrorToModelError } from '../common/openai-error-to-model-error.js';
import type { VendorInfo } from '../common/vendor-failure.js';

/** How vLLM words a prompt longer than the model's context. */
const CONTEXT_REFUSAL = /maximum context length|max_model_len|context length/i;

/**
 * An error of the `openai` SDK talking to vLLM → `ModelError`, as for any OpenAI-compatible server,
 * except that a 400 saying the prompt passes the model's context is `model_context_exceeded`: the
 * same end as the bridge's own check before sending.
 */
export function vllmErrorToModelError(error: unknown, phase: 'request' | 'stream', vendor: VendorInfo): ModelError {
  const mapped = openAiErrorToModelError(error, phase, vendor);
  const status = (mapped.details as { status?: number } | undefined)?.status;
  if (status === 400 && CONTEXT_REFUSAL.test(mapped.message)) {
    return new ModelError(
      `${vendor.name} refused the prompt as longer than the model's context: ${mapped.message} ` +
        "The episode ends here; bound the episode's length (max_turns, tool output) or serve the model with a longer --max-model-len.",
      { code: 'model_context_exceeded', cause: error, details: mapped.details },
    );
  }
  return mapped;
}

/** The bridge's own refusal of a prompt of `promptLength` ids, which a context of `maxModelLen` cannot hold with a token to spare. */
export function contextExceeded(vendor: VendorInfo, promptLength: number, maxModelLen: number): ModelError {
  return new ModelError(
    `This turn's prompt has ${promptLength} tokens, and ${vendor.name} serves the model with a context of ` +
      `${maxModelLen} tokens (max_model_len) for prompt and completion together, so the episode ends here rather ` +
      "than send it. Bound the episode's length (max_turns, tool output) or serve the model with a longer --max-model-len.",
    {
      code: 'model_context_exceeded',
      details: { vendor: vendor.name, prompt_tokens: promptLength, max_model_len: maxModelLen },
    },
  );
}
