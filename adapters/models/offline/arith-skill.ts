import { type ArithPlan, PREVIOUS, readArithQuestion } from './arith-question-reader.js';
import { type ConversationView, exchangesOf, type ToolExchange, verdictOf } from './conversation-view.js';
import { answerOnly, callTool, type OfflineTurnPlan } from './offline-action.js';
import type { SamplingNoise } from './sampling-noise.js';

/**
 * How the offline model plays `arith`-like episodes (a question, a `calculator` and a `submit` tool):
 * read the question into calculator steps, run them one per turn (reading each result back from the
 * tool message), submit the last result, and after the verdict say how it went.
 *
 * On a tool error it retries once, written differently; a second error on the same step ends the
 * episode with an explanation instead of a call.
 */

/** True when the conversation offers what this skill needs. */
export function suitsArith(view: ConversationView): boolean {
  return (
    view.toolNames.has('calculator') &&
    view.toolNames.has('submit') &&
    view.userTexts.some((text) => text.includes('?'))
  );
}

/** The next turn of an arith episode. */
export function nextArithTurn(view: ConversationView, noise: SamplingNoise): OfflineTurnPlan {
  const problem = view.userTexts.find((text) => text.includes('?')) ?? '';
  const read = readArithQuestion(problem);
  if (!read.ok) {
    return answerOnly(
      `I tried to turn the problem into calculator steps. ${read.reason}`,
      `I can't solve this problem. ${read.reason}`,
    );
  }
  const plan = read.plan;

  const submits = exchangesOf(view, 'submit').filter((exchange) => exchange.result !== undefined);
  const lastSubmit = submits.at(-1);
  if (lastSubmit?.result) {
    if (!lastSubmit.result.isError) return reportVerdict(lastSubmit);
    if (submits.length >= 2) {
      return answerOnly(
        'submit refused the answer twice; trying again would not help.',
        `I could not submit my answer: ${lastSubmit.result.text}`,
      );
    }
    // Retry once, differently: as text rather than a number.
    const retry = String(lastSubmit.arguments.answer ?? '');
    return callTool(
      `submit refused ${retry}: ${lastSubmit.result.text} I will submit it once more as plain text.`,
      '',
      'submit',
      { answer: retry },
    );
  }

  const progress = calculatorProgress(exchangesOf(view, 'calculator'));
  if (progress.failedAttempts >= 2) {
    return answerOnly(
      'The calculator rejected this step twice; I cannot finish without it.',
      `I could not finish the calculation: ${progress.lastError}`,
    );
  }
  const step = plan.steps[progress.results.length];
  if (step !== undefined) return calculatorTurn(plan, step, progress, noise);

  const answer = progress.results.at(-1) as number;
  return callTool(
    `The last step gives ${answer}, which answers "${plan.question}" I will submit ${answer}.`,
    `The answer is ${answer}.`,
    'submit',
    { answer },
  );
}

interface CalculatorProgress {
  /** Results of the successful calls, in order: one per completed step. */
  results: number[];
  /** Failed attempts at the current step. */
  failedAttempts: number;
  lastError: string;
}

function calculatorProgress(exchanges: readonly ToolExchange[]): CalculatorProgress {
  const progress: CalculatorProgress = { results: [], failedAttempts: 0, lastError: '' };
  for (const exchange of exchanges) {
    if (!exchange.result) continue;
    const value = exchange.result.isError ? undefined : readResult(exchange.result.text);
    if (value === undefined) {
      progress.failedAttempts++;
      progress.lastError = exchange.result.text;
    } else {
      progress.results.push(value);
      progress.failedAttempts = 0;
    }
  }
  return progress;
}

/** The number after the last "=" of a calculator result, e.g. "12 * 24 = 288" → 288. */
function readResult(text: string): number | undefined {
  const match = /=\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text.trim());
  return match ? Number(match[1]) : undefined;
}

function calculatorTurn(
  plan: ArithPlan,
  step: string,
  progress: CalculatorProgress,
  noise: SamplingNoise,
): OfflineTurnPlan {
  const index = progress.results.length;
  const previous = progress.results.at(-1);
  let expression =
    previous === undefined ? step : step.replaceAll(PREVIOUS, previous < 0 ? `(${previous})` : String(previous));
  let reasoning: string;
  if (progress.failedAttempts > 0) {
    // "Differently": the same step without spaces and with every operand bracketed.
    expression = expression.replace(/\s+/g, '').replace(/\d+(?:\.\d+)?/g, '($&)');
    reasoning = `The calculator rejected the last expression (${progress.lastError}). I will write step ${index + 1} differently: ${expression}.`;
  } else {
    const slipped = noise.slips(`calculator:${index}`) ? miscopy(expression, noise, index) : expression;
    reasoning =
      index === 0
        ? `The question is "${plan.question}" From the text: ${plan.facts.join('; ')}. ` +
          `Plan: ${plan.steps.map((entry, at) => `(${at + 1}) ${entry.replaceAll(PREVIOUS, 'the previous result')}`).join(', ')}. ` +
          `First I compute ${expression}.`
        : `The calculator gave ${previous}. Next, step ${index + 1}: ${expression}.`;
    expression = slipped;
  }
  return callTool(reasoning, '', 'calculator', { expression });
}

/** A seeded slip: one operand copied off by one (never to zero, so a divisor stays valid). */
function miscopy(expression: string, noise: SamplingNoise, index: number): string {
  const numbers = [...expression.matchAll(/\d+/g)];
  const target = numbers[noise.choose(`operand:${index}`, numbers.length)];
  if (target === undefined) return expression;
  const value = Number(target[0]);
  const changed = value <= 1 || noise.choose(`direction:${index}`, 2) === 0 ? value + 1 : value - 1;
  return expression.slice(0, target.index) + String(changed) + expression.slice(target.index + target[0].length);
}

function reportVerdict(submit: ToolExchange): OfflineTurnPlan {
  const answer = String(submit.arguments.answer ?? '');
  const result = submit.result?.text ?? '';
  return answerOnly(
    `The submit result says the episode is over: ${result}`,
    `I submitted ${answer}, and ${verdictOf(result)}.`,
  );
}
