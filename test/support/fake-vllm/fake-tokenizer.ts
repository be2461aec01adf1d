/**
 * The tokenizer of the fake vLLM server: special tokens, a table of merges and one token per
 * character, like a small BPE vocabulary. Its canonical encoding is greedy (longest merge first), but
 * the fake model samples other splits of the same text now and then, as BPE models do — so decoding
 * what the model sampled and encoding it again does not give back the sampled ids. That is the
 * property a client which renders the conversation again as text trips over.
 */

/** Special tokens, by id; the first three are skipped when decoding with `skip_special_tokens`. */
export const SPECIAL_TOKENS = [
  '<|endoftext|>',
  '<|im_start|>',
  '<|im_end|>',
  '<think>',
  '</think>',
  '<tool_call>',
  '</tool_call>',
  '<tool_response>',
  '</tool_response>',
] as const;

/** Ids of the special tokens the fake model and its template use. */
export const TOKEN = {
  endOfText: 0,
  imStart: 1,
  imEnd: 2,
  think: 3,
  thinkEnd: 4,
  toolCall: 5,
  toolCallEnd: 6,
} as const;

/** Special tokens that `skip_special_tokens` leaves out of decoded text (the others are text-like, as in Qwen3). */
const SKIPPED = new Set<number>([TOKEN.endOfText, TOKEN.imStart, TOKEN.imEnd]);

/** Multi-character tokens, ids from {@link FIRST_MERGE}. */
const MERGES = [
  '\n\n',
  'the',
  'er',
  'in',
  'an',
  'on',
  're',
  'st',
  'ing',
  ' the',
  ' a',
  ' I',
  ' to',
  'ca',
  'cal',
  'calc',
  'calculator',
  'ul',
  'at',
  'or',
  'ator',
  'sub',
  'submit',
  'mit',
  'ex',
  'ression',
  'expression',
  'answer',
  'name',
  'arguments',
  '{"',
  '":',
  '": ',
  '", ',
  '"}',
  '}}',
  ' +',
  ' =',
  'Let',
  ' me',
  ' compute',
  ' first',
  'user',
  'assistant',
  'system',
  'tool',
  '_response',
  'Done',
  ' is',
  'at is',
  'What',
  ' what',
];

const FIRST_MERGE = 100;
/** Every character that is not part of a merge or special token is `CHAR_BASE + code point`. */
const CHAR_BASE = 1000;

const mergeIds = new Map(MERGES.map((text, index) => [text, FIRST_MERGE + index]));
const longestMerge = Math.max(...MERGES.map((text) => text.length));

/** The canonical ids of `text`: special tokens where they stand, then the longest merge at each place. */
export function encode(text: string): number[] {
  const ids: number[] = [];
  let segmentStart = 0;
  for (let at = 0; at < text.length; ) {
    const special = SPECIAL_TOKENS.findIndex((token) => text.startsWith(token, at));
    if (special < 0) {
      at++;
      continue;
    }
    ids.push(...encodeSegment(text.slice(segmentStart, at)), special);
    at += SPECIAL_TOKENS[special]!.length;
    segmentStart = at;
  }
  ids.push(...encodeSegment(text.slice(segmentStart)));
  return ids;
}

function encodeSegment(text: string): number[] {
  const ids: number[] = [];
  for (let at = 0; at < text.length; ) {
    let taken = 0;
    for (let length = Math.min(longestMerge, text.length - at); length >= 2; length--) {
      const id = mergeIds.get(text.slice(at, at + length));
      if (id !== undefined) {
        ids.push(id);
        taken = length;
        break;
      }
    }
    if (taken > 0) {
      at += taken;
      continue;
    }
    const codePoint = text.codePointAt(at)!;
    ids.push(CHAR_BASE + codePoint);
    at += codePoint > 0xffff ? 2 : 1;
  }
  return ids;
}

/** The text of one id (a special token's own text). */
export function tokenText(id: number): string {
  if (id < SPECIAL_TOKENS.length) return SPECIAL_TOKENS[id]!;
  if (id >= CHAR_BASE) return String.fromCodePoint(id - CHAR_BASE);
  const merge = MERGES[id - FIRST_MERGE];
  if (merge === undefined) throw new RangeError(`No token has id ${id}.`);
  return merge;
}

/** The text of `ids`; with `skipSpecial`, without `<|im_start|>`, `<|im_end|>` and `<|endoftext|>`, as vLLM's default. */
export function decode(ids: readonly number[], skipSpecial = false): string {
  let text = '';
  for (const id of ids) if (!(skipSpecial && SKIPPED.has(id))) text += tokenText(id);
  return text;
}

/**
 * The ids a model samples for `text`: the canonical encoding with every third merge token (the 2nd,
 * 5th, …) split into its first character and the rest — same text, other ids, as a BPE model
 * sometimes samples a non-canonical split.
 */
export function sampleIds(text: string): number[] {
  const ids: number[] = [];
  let merges = 0;
  for (const id of encode(text)) {
    const isMerge = id >= FIRST_MERGE && id < CHAR_BASE;
    if (isMerge && merges++ % 3 === 1) {
      const merge = tokenText(id);
      ids.push(...encodeSegment(merge.slice(0, 1)), ...encodeSegment(merge.slice(1)));
    } else {
      ids.push(id);
    }
  }
  return ids;
}

/**
 * The logprob the fake model gives the token `id` it sampled at `position` of a completion with
 * `seed`: a deterministic value in (−5, 0), different enough from token to token that a test
 * comparing them finds any one out of place.
 */
export function logprobOf(id: number, position: number, seed: number): number {
  let hash = 0x811c9dc5;
  for (const value of [id, position, seed]) hash = Math.imul(hash ^ (value | 0), 0x01000193) >>> 0;
  return -((hash % 4999) + 1) / 1000;
}
