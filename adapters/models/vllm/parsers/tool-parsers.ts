import { HermesToolParser } from './hermes-tool-parser.js';
import type { ToolParser, ToolParserOptions } from './tool-parser.js';

/**
 * The tool parsers, named as vLLM names its own (`--tool-call-parser`). A new one (`llama3_json`,
 * `mistral`) is a file and a row here (and its name among the choices of `VLLM_TOOL_PARSER`).
 */
export const TOOL_PARSERS = {
  hermes: (options: ToolParserOptions): ToolParser => new HermesToolParser(options),
} as const;

/** The name of a tool parser. */
export type ToolParserName = keyof typeof TOOL_PARSERS;
