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
