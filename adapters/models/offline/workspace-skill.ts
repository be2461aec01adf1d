import { type ConversationView, exchangesOf, type ToolExchange, verdictOf } from './conversation-view.js';
import { answerOnly, callTool, type OfflineTurnPlan } from './offline-action.js';
import type { SamplingNoise } from './sampling-noise.js';

/**
 * How the offline model plays `workspace`-like episodes ("find the value recorded for <key>"):
 * `list_files` → `search` for the key → `read_file` the file whose line records it → `submit` the value.
 * When a plain search finds no record it asks `get_hint` if the task offers it, then searches with
 * `deep: true` (the slow path through archived files). Everything it knows comes from tool results.
 *
 * On errors: a failed `list_files` or `search` is retried once; a `read_file` that fails or does not
 * hold the record moves on to the next candidate file; a refused `submit` ends the episode in text.
 */

const NEEDED_TOOLS = ['list_files', 'search', 'read_file', 'submit'] as const;

/** True when the conversation offers what this skill needs. */
export function suitsWorkspace(view: ConversationView): boolean {
  return NEEDED_TOOLS.every((name) => view.toolNames.has(name));
}

/** The next turn of a workspace episode. */
export function nextWorkspaceTurn(view: ConversationView, noise: SamplingNoise): OfflineTurnPlan {
  const key = wantedKey(view.userTexts);
  if (key === undefined) {
    return answerOnly(
      'I expected a request like "find the value recorded for <key>", and found none.',
      "I can't solve this task: I could not tell which value to look for.",
    );
  }

  const lastSubmit = exchangesOf(view, 'submit')
    .filter((exchange) => exchange.result !== undefined)
    .at(-1);
  if (lastSubmit?.result) {
    const answer = String(lastSubmit.arguments.answer ?? '');
    if (lastSubmit.result.isError)
      return answerOnly(
        'submit refused the value, so I stop.',
        `I could not submit ${answer}: ${lastSubmit.result.text}`,
      );
    return answerOnly(
      `The submit result says the episode is over: ${lastSubmit.result.text}`,
      `I submitted ${answer} for ${key}, and ${verdictOf(lastSubmit.result.text)}.`,
    );
  }

  const reads = exchangesOf(view, 'read_file').filter((exchange) => exchange.result !== undefined);
  for (const read of reads) {
    const value = read.result?.isError ? undefined : recordedValue(read.result?.text ?? '', key);
    if (value !== undefined) {
      const submitted = noise.slips('submit') ? mistype(value) : value;
      return callTool(
        `${pathOf(read)} has the line recording ${key}; its value is ${value}. I will submit it.`,
        `The value recorded for ${key} is ${value}.`,
        'submit',
        { answer: submitted },
      );
    }
  }

  const lists = exchangesOf(view, 'list_files').filter((exchange) => exchange.result !== undefined);
  if (!lists.some((exchange) => !exchange.result?.isError)) {
    if (lists.length >= 2)
      return answerOnly('list_files failed twice.', `I could not list the files: ${lists.at(-1)?.result?.text ?? ''}`);
    return callTool(`I need the value recorded for ${key}. First, what files are there?`, '', 'list_files', {});
  }

  const searches = exchangesOf(view, 'search').filter((exchange) => exchange.result !== undefined);
  const attempted = new Set(reads.map(pathOf));
  const candidates = searches
    .filter((exchange) => !exchange.result?.isError)
    .flatMap((exchange) => candidateLines(exchange.result?.text ?? '', key))
    .filter((candidate) => !attempted.has(candidate.path));
  const candidate = candidates[0];
  if (candidate !== undefined) {
    return callTool(
      `${candidate.path}:${candidate.line} seems to record ${key}. I will read the whole file to be sure.`,
      '',
      'read_file',
      { path: candidate.path },
    );
  }

  const failedSearches = searches.filter((exchange) => exchange.result?.isError);
  if (failedSearches.length >= 2)
    return answerOnly(
      'search failed twice.',
      `I could not search the files: ${failedSearches.at(-1)?.result?.text ?? ''}`,
    );
  const deepDone = searches.some((exchange) => exchange.arguments.deep === true && !exchange.result?.isError);
  const plainDone = searches.some((exchange) => exchange.arguments.deep !== true && !exchange.result?.isError);
  if (!plainDone && !deepDone) {
    return callTool(`There are ${fileCount(lists)} files. I will search them for ${key}.`, '', 'search', {
      pattern: key,
    });
  }
  if (!deepDone) {
    const hint = exchangesOf(view, 'get_hint').at(-1);
    if (hint === undefined && view.toolNames.has('get_hint')) {
      return callTool(
        `No line records ${key} outside the archives. This task offers a hint; I will ask for it.`,
        '',
        'get_hint',
        {},
      );
    }
    const why =
      hint?.result && !hint.result.isError
        ? `The hint says: ${hint.result.text}`
        : `No line records ${key} outside the archives.`;
    return callTool(`${why} I will search again with deep: true, which takes longer.`, '', 'search', {
      pattern: key,
      deep: true,
    });
  }
  return answerOnly(
    `I searched every file, archives included, and no line records a value for ${key}.`,
    `I can't find a value recorded for ${key} in these files.`,
  );
}

/** The key of "find the value recorded for `<key>`" in the user's messages. */
function wantedKey(userTexts: readonly string[]): string | undefined {
  for (const text of userTexts) {
    const match = /value recorded for [`"']?([A-Za-z][A-Za-z0-9_]*)/i.exec(text);
    if (match) return match[1];
  }
  return undefined;
}

/**
 * The value recorded for exactly `key` in `text`, in any of the notations files use: `key=value`,
 * `key = value`, `"key": "value"`, `key,value,…` (CSV) or "the value recorded for key is value".
 * `\b` keeps `key_previous` and other longer keys from matching.
 */
function recordedValue(text: string, key: string): string | undefined {
  const assignment = new RegExp(`\\b${key}\\b"?\\s*[:=,]\\s*"?([A-Za-z0-9_-]+)`, 'i');
  const sentence = new RegExp(`\\bvalue recorded for ${key} is ([A-Za-z0-9_-]+)`, 'i');
  for (const line of text.split('\n')) {
    const match = assignment.exec(line) ?? sentence.exec(line);
    if (match) return match[1];
  }
  return undefined;
}

/** Lines of a search result (`path:line: text`) that record a value for `key`. */
function candidateLines(result: string, key: string): Array<{ path: string; line: number }> {
  const found: Array<{ path: string; line: number }> = [];
  for (const row of result.split('\n')) {
    const match = /^([^:\s][^:]*):(\d+): (.*)$/.exec(row);
    if (match && recordedValue(match[3] ?? '', key) !== undefined)
      found.push({ path: match[1] ?? '', line: Number(match[2]) });
  }
  return found;
}

function pathOf(exchange: ToolExchange): string {
  return String(exchange.arguments.path ?? '');
}

function fileCount(lists: readonly ToolExchange[]): string {
  const listed = lists.find((exchange) => !exchange.result?.isError)?.result?.text ?? '';
  return /^(\d+) files/.exec(listed)?.[1] ?? 'several';
}

/** A seeded slip: the last digit of the value mistyped. */
function mistype(value: string): string {
  return value.replace(/(\d)(?!.*\d)/, (digit) => String((Number(digit) + 1) % 10));
}
