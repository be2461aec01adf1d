import { ThinkReasoningParser } from './think-reasoning-parser.js';

/** A piece of completion text, and whether it is reasoning or the answer. */
export interface TextSection {
  kind: 'reasoning' | 'content';
  text: string;
}

/**
 * Splits a completion's text, as it streams, into reasoning and answer — what vLLM's reasoning
 * parsers do on its chat endpoint, done here because the bridge generates on `/v1/completions`.
 */
export interface ReasoningParser {
  /** The sections one delta of text makes (text that may still be part of a tag is held back). */
  push(delta: string): TextSection[];
  /** What was held back, once the completion is over. */
  end(): TextSection[];
}

/** What a reasoning parser is told of the prompt it reads a completion of. */
export interface ReasoningParserOptions {
  /** The generation prompt left a reasoning block open (`…<think>\n`): the completion begins inside it. */
  promptOpensReasoning: boolean;
}

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
