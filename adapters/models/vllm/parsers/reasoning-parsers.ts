import type { ReasoningParser, ReasoningParserOptions } from './reasoning-parser.js';
import { ThinkReasoningParser } from './think-reasoning-parser.js';

/**
 * The reasoning parsers, named as vLLM names its own (`--reasoning-parser`). A new one is a file and
 * a row here (and its name among the choices of `VLLM_REASONING_PARSER`).
 */
export const REASONING_PARSERS = {
  qwen3: (options: ReasoningParserOptions): ReasoningParser =>
    new ThinkReasoningParser({ startsInReasoning: options.promptOpensReasoning }),
  // DeepSeek-R1's newer templates open the block in the generation prompt, older ones let the model do it.
  deepseek_r1: (): ReasoningParser => new ThinkReasoningParser({ startsInReasoning: true }),
  none: (): ReasoningParser => ({
    push: (delta) => (delta === '' ? [] : [{ kind: 'content', text: delta }]),
    end: () => [],
  }),
} as const;

/** The name of a reasoning parser. */
export type ReasoningParserName = keyof typeof REASONING_PARSERS;
