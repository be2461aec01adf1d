import { type ScriptedEnvironment, textBlock } from '../../test/support/scripted-ors-environment.js';

/** The name the fake ORS server serves the bench environment under. */
export const BENCH_ENV = 'bench';

/** Tasks in the `train` split; runs cycle through them. */
export const BENCH_TASKS = 1000;

/**
 * The environment every benchmark episode plays: `step {n}` answers at once and never finishes,
 * `submit {answer}` finishes the episode (reward 1 for 42). With the fake model's `solve-in-<T>`,
 * an episode is exactly T turns of one model call and one tool call each.
 */
export function benchEnvironment(): ScriptedEnvironment {
  return {
    splits: [{ name: 'train', type: 'train' }],
    tasks: { train: Array.from({ length: BENCH_TASKS }, (_, i) => ({ i })) },
    tools: {
      step: {
        spec: {
          name: 'step',
          description: 'Takes step n of the task.',
          input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
        },
        run: (input) => ({ ok: true, output: { blocks: [textBlock(`Step ${String(input.n)} done.`)] } }),
      },
      submit: {
        spec: {
          name: 'submit',
          description: 'Submits the answer and ends the episode.',
          input_schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] },
        },
        run: (input) => ({
          ok: true,
          output: {
            blocks: [textBlock(input.answer === 42 ? 'Correct!' : 'Wrong.')],
            reward: input.answer === 42 ? 1 : 0,
            finished: true,
          },
        }),
      },
    },
    prompt: (task) => [textBlock(`Task ${String(task.i)}: take the steps you are asked for, then submit 42.`)],
  };
}
