import type { Block, Split, ToolOutput, ToolSpec } from '../../src/ors/ors-schemas.js';

/** What a scripted tool run sees. */
export interface ScriptedToolContext {
  sid: string;
  task: Record<string, unknown>;
  /** Resolves when the server has written the next `: ping` comment on this call's stream. */
  untilPinged(): Promise<void>;
}

/**
 * What a scripted tool answers: a result (`end` with `ok`), a raw `end` payload (for malformed
 * results), or — by throwing — an `event: error` carrying the exception's message.
 */
export type ScriptedToolReply =
  | { ok: true; output: Partial<ToolOutput> & { blocks: Block[] } }
  | { ok: false; error: string }
  | { rawEnd: string };

export interface ScriptedTool {
  spec: ToolSpec;
  run(input: Record<string, unknown>, context: ScriptedToolContext): ScriptedToolReply | Promise<ScriptedToolReply>;
  /** Listed only by `/{env}/task_tools`, like the reference's `@tool(shared=False)`. */
  taskOnly?: boolean;
}

export interface ScriptedEnvironment {
  splits: Split[];
  tasks: Record<string, Record<string, unknown>[]>;
  tools: Record<string, ScriptedTool>;
  prompt(task: Record<string, unknown>): Block[];
}

/** A text block with every key present, as the reference writes it. */
export function textBlock(text: string): Block {
  return { type: 'text', text, detail: null };
}

/**
 * The default fake environment: add two numbers. `submit {answer}` rewards 1 for the right sum and
 * finishes the episode; `hint` is a task-only tool.
 */
export function arithEnvironment(): ScriptedEnvironment {
  const sum = (task: Record<string, unknown>): number => Number(task.a) + Number(task.b);
  return {
    splits: [
      { name: 'train', type: 'train' },
      { name: 'test', type: 'test' },
    ],
    tasks: {
      train: [
        { a: 2, b: 3 },
        { a: 5, b: 7 },
        { a: 10, b: 20 },
      ],
      test: [{ a: 1, b: 1 }],
    },
    tools: {
      submit: {
        spec: {
          name: 'submit',
          description: 'Submit the sum.',
          input_schema: { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] },
        },
        run(input, { task }) {
          if (typeof input.answer !== 'number') return { ok: false, error: 'Invalid input: answer must be a number' };
          const correct = input.answer === sum(task);
          return {
            ok: true,
            output: { blocks: [textBlock(correct ? 'Correct!' : 'Wrong.')], reward: correct ? 1 : 0, finished: true },
          };
        },
      },
      hint: {
        spec: { name: 'hint', description: 'A hint for this task.', input_schema: null },
        taskOnly: true,
        run: (_input, { task }) => ({
          ok: true,
          output: { blocks: [textBlock(`It is more than ${Number(task.a)}.`)] },
        }),
      },
    },
    prompt: (task) => [textBlock(`What is ${Number(task.a)} + ${Number(task.b)}? Answer with the submit tool.`)],
  };
}
