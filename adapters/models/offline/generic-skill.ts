import type { ToolDefinition } from '../../../src/models/conversation.js';
import type { ConversationView } from './conversation-view.js';
import { answerOnly, callTool, type OfflineTurnPlan } from './offline-action.js';
import { argumentsFor } from './schema-arguments.js';

/**
 * How the offline model plays an environment it does not know (anything but `arith` and `workspace`):
 * it calls each offered tool once, one per turn, with arguments made from the tool's JSON Schema
 * (`schema-arguments.ts`; quoted words of the prompt are tried for strings), the tools whose names
 * say they end an episode (`submit`, `answer`, `finish`, …) last; then it answers in text. It cannot
 * solve the task, but the episode runs end to end — tool calls, results, and a reward wherever a
 * tool gives one — so an environment of your own can be tried without a model key. Deterministic.
 */

/** Names of tools that end an episode, by the words environments use for them. */
const ENDING = /(^|[^a-z])(submit|answer|finish|final|done|complet|end(?![a-z]))/i;

/** The next turn in an unknown environment. */
export function nextGenericTurn(view: ConversationView, tools: readonly ToolDefinition[]): OfflineTurnPlan {
  if (tools.length === 0) {
    return answerOnly(
      'This is neither an arith nor a workspace task, and no tools are offered.',
      "I can't do anything here: the offline model plays the built-in arith and workspace environments, and " +
        'any other by trying its tools; this one offers none. Use a real model (e.g. openai:… or anthropic:…).',
    );
  }
  const called = new Set(view.exchanges.map((exchange) => exchange.name));
  const next = playOrder(tools).find((tool) => !called.has(tool.name));
  if (next === undefined) {
    const results = view.exchanges.filter((exchange) => exchange.result !== undefined);
    const failed = results.filter((exchange) => exchange.result?.isError).map((exchange) => exchange.name);
    return answerOnly(
      `I have tried every tool once (${[...called].join(', ')})` +
        (failed.length > 0 ? `; ${failed.join(', ')} refused the arguments I made up.` : '.'),
      'I tried each tool once; that is all the offline model does in an environment it does not know. Use a real model (e.g. openai:… or anthropic:…) to solve it.',
    );
  }
  const args = argumentsFor(next.inputSchema, quotedWords(view.userTexts));
  const ending = ENDING.test(next.name) ? ' It sounds like it ends the episode, so it comes last.' : '';
  return callTool(
    `This is neither an arith nor a workspace task. I do not know this environment, so I try each of its tools ` +
      `once with arguments that fit its schema.${ending} Next: ${next.name}.`,
    '',
    next.name,
    args,
  );
}

/** The tools in the order they are offered, those that end an episode last. */
function playOrder(tools: readonly ToolDefinition[]): ToolDefinition[] {
  return [...tools.filter((tool) => !ENDING.test(tool.name)), ...tools.filter((tool) => ENDING.test(tool.name))];
}

/** Words and phrases the prompt quotes ("…", “…” or `…`; not '…', which apostrophes fake), in order: the task's own names for things. */
function quotedWords(texts: readonly string[]): string[] {
  return texts.flatMap((text) =>
    [...text.matchAll(/"([^"\n]{1,200})"|“([^”\n]{1,200})”|`([^`\n]{1,200})`/g)].map(
      (match) => match[1] ?? match[2] ?? match[3] ?? '',
    ),
  );
}
