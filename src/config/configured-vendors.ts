/** A model vendor the settings can enable, beside `offline`, which is always there. */
export type Vendor = 'openai' | 'anthropic' | 'vllm';

/** The settings that enable a vendor, as the configuration holds them. */
export interface VendorSettings {
  openai: { apiKey: string | undefined; baseUrl: string | undefined };
  anthropic: { apiKey: string | undefined };
  vllm: { baseUrl: string | undefined };
}

/**
 * The vendors the settings enable, in the order the default model prefers them: `openai` with
 * `OPENAI_API_KEY` or `OPENAI_BASE_URL` (a local vLLM or Ollama usually needs no key), `anthropic` with
 * `ANTHROPIC_API_KEY`, `vllm` with `VLLM_BASE_URL`. The one answer to "is it configured?", for the
 * providers the bridge builds and the default model alike.
 */
export function configuredVendors({ openai, anthropic, vllm }: VendorSettings): Vendor[] {
  const vendors: Vendor[] = [];
  if (openai.apiKey !== undefined || openai.baseUrl !== undefined) vendors.push('openai');
  if (anthropic.apiKey !== undefined) vendors.push('anthropic');
  if (vllm.baseUrl !== undefined) vendors.push('vllm');
  return vendors;
}
