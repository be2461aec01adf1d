import type { TokenData } from './model.js';

type TokenLists = 'promptTokenIds' | 'tokenIds' | 'logprobs';
const LISTS: readonly TokenLists[] = ['promptTokenIds', 'tokenIds', 'logprobs'];

/**
 * `sum` with `more` added after it, as a model's `token-data` parts add up (see `ModelPart`): each list
 * appended in order, `raw` too when both are lists (otherwise the later one replaces it); `newSequence`
 * and `renderer`, which say something of the whole turn, as the later part sets them. `sum` is
 * changed in place and returned — a turn's parts are many, and copying the lists for each would cost
 * their square — or made when undefined; it never shares a list of `more`.
 */
export function addTokenData(sum: TokenData | undefined, more: TokenData): TokenData {
  const into = sum ?? {};
  for (const key of LISTS) {
    const items = more[key];
    if (items !== undefined) appendAll((into[key] ??= []), items);
  }
  if (more.raw !== undefined) {
    if (Array.isArray(into.raw) && Array.isArray(more.raw)) appendAll(into.raw, more.raw);
    else into.raw = Array.isArray(more.raw) ? [...more.raw] : more.raw;
  }
  if (more.newSequence !== undefined) into.newSequence = more.newSequence;
  if (more.renderer !== undefined) into.renderer = more.renderer;
  return into;
}

/** `items` pushed onto `list` one by one: a spread of a long list would pass the engine's limit on arguments. */
function appendAll<T>(list: T[], items: readonly T[]): void {
  for (const item of items) list.push(item);
}
