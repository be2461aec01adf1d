import { z } from 'zod';
import { type Block, BlocksSchema, type ToolOutput, ToolOutputSchema } from '../ors-schemas.js';
import { OrsServerError } from './ors-server-error.js';

/**
 * What an environment returns is checked and normalised here before it goes on the wire: every key is
 * present (`detail`, `metadata`, `reward` as null, `finished` false) and keys come in the reference
 * server's order, so our bytes read like theirs.
 */

/** `blocks` checked and written with every key, in the reference's key order. Throws a 500 `invalid_environment_output` error. */
export function toWireBlocks(blocks: unknown, what: string): Block[] {
  const parsed = BlocksSchema.safeParse(blocks);
  if (!parsed.success) throw invalidOutput(what, parsed.error);
  return parsed.data.map(wireBlock);
}

/** A tool's result checked and written with every key, in the reference's key order. Throws a 500 `invalid_environment_output` error. */
export function toWireToolOutput(result: unknown, what: string): ToolOutput {
  const parsed = ToolOutputSchema.safeParse(result);
  if (!parsed.success) throw invalidOutput(what, parsed.error);
  const { blocks, metadata, reward, finished } = parsed.data;
  return { blocks: blocks.map(wireBlock), metadata, reward, finished };
}

function wireBlock(block: Block): Block {
  return block.type === 'text'
    ? { text: block.text, detail: block.detail ?? null, type: 'text' }
    : { data: block.data, mimeType: block.mimeType, detail: block.detail ?? null, type: 'image' };
}

function invalidOutput(what: string, error: z.ZodError): OrsServerError {
  // A bug in the environment, not in the request: a server-level failure (500 / `event: error`).
  return new OrsServerError(
    `${what} is not valid ORS output (${z.prettifyError(error).replace(/\n/g, ' ')}); fix the environment.`,
    { code: 'invalid_environment_output' },
  );
}
