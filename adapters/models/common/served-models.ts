import type OpenAI from 'openai';
import { z } from 'zod';
import type { ModelProvider, ServedModelLimits } from '../../../src/models/model.js';

/** The part of an OpenAI-style model list that is read: each model's id. */
const ServedModelListSchema = z.object({ data: z.array(z.object({ id: z.string().min(1).max(256) })) });

/** True when `baseUrl` is OpenAI's own API, which lists every model it has (embeddings, images, audio…). */
export function isOpenAiHost(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname === 'api.openai.com';
  } catch {
    return false;
  }
}

/**
 * `servedModels` of a provider on `client`, when it should ask: the server at `baseUrl` is another
 * OpenAI-compatible one (vLLM, SGLang, Ollama serve their own models, rarely `gpt-4.1-mini`) and no
 * names were configured (`listedModels`, `OPENAI_MODELS`). OpenAI itself is never asked: its list is
 * long and mostly of models that cannot chat.
 */
export function servedModelsOf(
  client: OpenAI,
  { baseUrl, listedModels }: { baseUrl?: string | undefined; listedModels?: readonly string[] | undefined },
): ModelProvider['servedModels'] {
  if (baseUrl === undefined || isOpenAiHost(baseUrl) || (listedModels?.length ?? 0) > 0) return undefined;
  return (limits) =>
    listServedModels(client, limits).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`GET ${client.baseURL.replace(/\/+$/, '')}/models gave no list of models: ${reason}`, {
        cause: error,
      });
    });
}

/**
 * The ids of `GET /v1/models` through the SDK (its URL, key and headers), once and without retries (the
 * next request asks again), read up to `maxBytes` of answer: a server answering megabytes is cut off
 * rather than read into memory.
 */
async function listServedModels(
  client: OpenAI,
  { maxModels, maxBytes, timeoutMs, signal }: ServedModelLimits,
): Promise<string[]> {
  const response = await client.models.list({ maxRetries: 0, timeout: timeoutMs, signal }).asResponse();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > maxBytes)
      throw new Error(`the answer is larger than ${maxBytes} bytes (RUNBRIDGE_MODEL_LIST_MAX_BYTES)`);
    chunks.push(chunk);
  }
  const parsed = ServedModelListSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
  if (!parsed.success) throw new Error('the answer is not an OpenAI list of models ({"data": [{"id"}…]})');
  return [...new Set(parsed.data.data.map((model) => model.id))].slice(0, maxModels);
}
