import { describe, expect, it } from 'vitest';
import type { VllmCompletionChunk } from '../../../../adapters/models/vllm/completion-chunks.js';
import {
  type CompletionPlan,
  CompletionStreamMapper,
} from '../../../../adapters/models/vllm/completion-stream-mapper.js';
import { ModelError } from '../../../../src/errors.js';
import { addTokenData } from '../../../../src/models/add-token-data.js';
import type { ModelPart, TokenData } from '../../../../src/models/model.js';

const VENDOR = { name: 'The vLLM server at http://gpu-1:8000', apiKeyVariable: 'VLLM_API_KEY' };
const RENDERER = {
  model: 'Qwen/Qwen3-8B',
  templateFingerprint: 'sha256:abc',
  chatTemplateKwargs: {},
  reasoningParser: 'none',
  toolParser: 'hermes',
};

function mapper(plan: Partial<CompletionPlan> = {}): CompletionStreamMapper {
  const mapped = new CompletionStreamMapper(VENDOR);
  mapped.begin({
    promptIds: [1, 2, 3],
    parsers: { reasoning: 'none', tool: 'hermes', promptOpensReasoning: false },
    keepTopLogprobs: false,
    maxTokens: 100,
    renderer: RENDERER,
    onEnd: () => undefined,
    ...plan,
  });
  return mapped;
}

type Choice = VllmCompletionChunk['choices'][number];

function chunk(choice: Partial<Choice>): VllmCompletionChunk {
  return { model: 'Qwen/Qwen3-8B', choices: [{ index: 0, ...choice }] };
}

/** A chunk of `text` whose ids are `ids`, one logprob each. */
function piece(text: string, ids: number[], logprobs: Array<number | null> = ids.map((id) => -id / 100)): Choice {
  return { index: 0, text, token_ids: ids, logprobs: { token_logprobs: logprobs } };
}

/** The turn's token data, as the episode adds it up from the parts. */
function sumOf(parts: readonly ModelPart[]): TokenData | undefined {
  let sum: TokenData | undefined;
  for (const part of parts) if (part.type === 'token-data') sum = addTokenData(sum, part.data);
  return sum;
}

describe('CompletionStreamMapper', () => {
  it('gives each chunk’s ids as they come, and the prompt, logprobs and renderer once at the end', () => {
    const mapped = mapper({ newSequence: 'truncated' });
    const first = mapped.push(chunk({ ...piece('Hel', [10, 11]), prompt_token_ids: [1, 2, 3] }));
    expect(first).toEqual([
      { type: 'token-data', data: { tokenIds: [10, 11] } },
      { type: 'text-delta', delta: 'Hel' },
    ]);
    const second = mapped.push(chunk({ ...piece('lo', [12]), finish_reason: 'stop', stop_reason: null }));
    expect(second[0]).toEqual({ type: 'token-data', data: { tokenIds: [12] } });
    const end = mapped.end();
    expect(end.filter((part) => part.type === 'token-data')).toEqual([
      {
        type: 'token-data',
        data: {
          promptTokenIds: [1, 2, 3],
          logprobs: [-0.1, -0.11, -0.12],
          newSequence: { reason: 'truncated' },
          renderer: RENDERER,
        },
      },
    ]);
    expect(sumOf([...first, ...second, ...end])).toEqual({
      promptTokenIds: [1, 2, 3],
      tokenIds: [10, 11, 12],
      logprobs: [-0.1, -0.11, -0.12],
      newSequence: { reason: 'truncated' },
      renderer: RENDERER,
    });
  });

  it('gives each chunk’s top alternatives with its ids, when they are kept', () => {
    const mapped = mapper({ keepTopLogprobs: true });
    const top: Array<Record<string, number>> = [{ a: -0.1 }, { b: -0.2 }];
    const parts = mapped.push(
      chunk({ ...piece('ab', [10, 20]), logprobs: { token_logprobs: [-0.1, -0.2], top_logprobs: top } }),
    );
    expect(parts[0]).toEqual({ type: 'token-data', data: { tokenIds: [10, 20], raw: top } });
  });

  it.each([
    ['a logprob is null', [-0.1, null, -0.3]],
    ['one is missing', [-0.1, -0.2]],
  ])('keeps no logprob of the turn when %s, and all its ids', (_what, logprobs) => {
    const mapped = mapper();
    const parts = [
      ...mapped.push(chunk(piece('a', [10], logprobs.slice(0, 1)))),
      ...mapped.push(chunk({ ...piece('bc', [11, 12], logprobs.slice(1)), finish_reason: 'stop' })),
      ...mapped.end(),
    ];
    const sum = sumOf(parts)!;
    expect(sum.tokenIds).toEqual([10, 11, 12]);
    expect(sum).not.toHaveProperty('logprobs');
  });

  it('refuses more completion ids, or logprobs, than max_tokens with model_error, before passing them on', () => {
    const ids = mapper({ maxTokens: 3 });
    ids.push(chunk(piece('ab', [10, 11])));
    const error = (() => {
      try {
        ids.push(chunk(piece('cd', [12, 13])));
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ code: 'model_error', details: { max_tokens: 3 } });
    expect((error as Error).message).toMatch(/sent 4 completion token ids or logprobs in a turn whose max_tokens is 3/);

    const logprobs = mapper({ maxTokens: 3 });
    expect(() => logprobs.push(chunk({ index: 0, logprobs: { token_logprobs: [-1, -1, -1, -1] } }))).toThrow(
      /max_tokens is 3/,
    );
  });

  it('takes exactly max_tokens ids', () => {
    const mapped = mapper({ maxTokens: 3 });
    mapped.push(chunk(piece('abc', [10, 11, 12])));
    mapped.push(chunk({ index: 0, text: '', finish_reason: 'length' }));
    expect(sumOf(mapped.end())).toMatchObject({ logprobs: [-0.1, -0.11, -0.12] });
  });
});
