import { z } from 'zod';
import { defineEnvironment, defineTool, ToolFailure } from '../../../src/ors/environment.js';
import type { TextBlock } from '../../../src/ors/ors-schemas.js';
import { ARITH_SPLITS, type ArithTask, ArithTaskSchema, arithTasks } from './arith-tasks.js';
import { evaluateExpression, formatNumber, MAX_EXPRESSION_LENGTH } from './calculator.js';

/**
 * `arith`: one word problem per episode. The model works with `calculator` and ends the episode
 * with `submit` (reward 1 for the right number, 0 otherwise).
 *
 * A wrong submission is not told the right answer: the episode is over either way, and keeping the
 * answer out of tool results keeps it out of transcripts that might be reused as training data.
 */

/** One episode's state. */
export interface ArithState {
  task: ArithTask;
  /** Set by the first valid `submit`; later submissions are refused. */
  finished: boolean;
}

const text = (value: string): TextBlock => ({ type: 'text', text: value, detail: null });

const calculator = defineTool<ArithState, { expression: string }>({
  name: 'calculator',
  description:
    'Evaluates an arithmetic expression with numbers, + - * /, parentheses and unary minus, ' +
    'e.g. "(12 * 24 - 150) / 6", and answers "<expression> = <value>".',
  input: z.object({
    expression: z.string().max(MAX_EXPRESSION_LENGTH).describe('The expression to evaluate, e.g. "7 * 3 + 4 * 2".'),
  }),
  run({ expression }) {
    const value = evaluateExpression(expression);
    return { blocks: [text(`${expression.trim()} = ${formatNumber(value)}`)] };
  },
});

const submit = defineTool<ArithState, { answer: number | string }>({
  name: 'submit',
  description: 'Submits the final answer, a number. Ends the episode: reward 1 if it is right, 0 if not.',
  input: z.object({
    answer: z.union([z.number(), z.string().max(100)]).describe('The final answer, e.g. 42.'),
  }),
  run({ answer }, { state }) {
    if (state.finished) throw new ToolFailure('The episode is already finished; open a new session for another task.');
    const value = parseAnswer(answer);
    state.finished = true;
    const correct = Math.abs(value - state.task.answer) < 1e-9;
    const shown = formatNumber(value);
    return {
      blocks: [
        text(
          correct
            ? `Correct: ${shown} is the right answer. The episode is finished.`
            : `Incorrect: ${shown} is not the right answer. The episode is finished.`,
        ),
      ],
      reward: correct ? 1 : 0,
      finished: true,
      metadata: { submitted: value, correct },
    };
  },
});

/**
 * Reads a submitted answer: a number, or text holding one number (thousands separators, a leading
 * "$" and surrounding spaces are tolerated). Anything else is a {@link ToolFailure} so the model can retry.
 */
function parseAnswer(answer: number | string): number {
  if (typeof answer === 'number') {
    if (!Number.isFinite(answer)) throw new ToolFailure('The answer must be a finite number, e.g. 42.');
    return answer;
  }
  const cleaned = answer
    .trim()
    .replace(/^\$/, '')
    .replace(/,(?=\d{3}\b)/g, '');
  if (!/^-?(\d+(\.\d+)?|\.\d+)$/.test(cleaned)) {
    throw new ToolFailure(
      `The answer must be a number such as 42; "${answer.slice(0, 100)}" is not one. Submit just the number.`,
    );
  }
  return Number(cleaned);
}

/** The `arith` environment as served by the built-in ORS server. */
export const arithEnvironment = defineEnvironment<ArithTask, ArithState>({
  name: 'arith',
  description: 'Arithmetic word problems: compute with the calculator tool, then submit the number.',
  splits: ARITH_SPLITS,
  tasks: arithTasks,
  taskSchema: ArithTaskSchema,
  tools: [calculator, submit],
  setup: ({ task }) => ({ task, finished: false }),
  prompt: (state) => [
    text(
      `${state.task.question}\n\nUse the calculator tool for the arithmetic, then call submit with the final number.`,
    ),
  ],
});
