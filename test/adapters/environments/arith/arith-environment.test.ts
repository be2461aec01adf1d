import { describe, expect, it } from 'vitest';
import { type ArithState, arithEnvironment } from '../../../../adapters/environments/arith/arith-environment.js';
import { ToolFailure, type ToolResult } from '../../../../src/ors/environment.js';

const task = {
  id: 'custom',
  question: 'A bakery bakes 12 trays of 24 cookies. How many cookies does it bake?',
  answer: 288,
};

async function session(): Promise<ArithState> {
  return arithEnvironment.setup({ task, secrets: {}, sessionId: 's1' });
}

async function call(state: ArithState, name: string, input: unknown): Promise<ToolResult> {
  const tool = arithEnvironment.tools.find((candidate) => candidate.name === name)!;
  const parsed = tool.input ? tool.input.parse(input) : input;
  return tool.run(parsed, { state, sessionId: 's1', signal: new AbortController().signal });
}

const textOf = (result: ToolResult) => result.blocks.map((block) => (block.type === 'text' ? block.text : '')).join('');

describe('the arith environment', () => {
  it('prompts with the question and one sentence on how to answer', async () => {
    const blocks = await arithEnvironment.prompt(await session());
    expect(blocks).toEqual([
      {
        type: 'text',
        text: `${task.question}\n\nUse the calculator tool for the arithmetic, then call submit with the final number.`,
        detail: null,
      },
    ]);
  });

  it('answers a calculator call with the expression and its value', async () => {
    const result = await call(await session(), 'calculator', { expression: ' (12 * 24 - 150) / 6 ' });
    expect(textOf(result)).toBe('(12 * 24 - 150) / 6 = 23');
    expect(result.reward ?? null).toBeNull();
    expect(result.finished ?? false).toBe(false);
  });

  it('reports a bad expression as a ToolFailure, not a crash', async () => {
    const state = await session();
    await expect(call(state, 'calculator', { expression: '1 / 0' })).rejects.toThrow(ToolFailure);
  });

  it('rewards a right submission with 1 and ends the episode', async () => {
    const state = await session();
    const result = await call(state, 'submit', { answer: 288 });
    expect(result).toMatchObject({ reward: 1, finished: true });
    expect(textOf(result)).toBe('Correct: 288 is the right answer. The episode is finished.');
    expect(state.finished).toBe(true);
  });

  it('gives a wrong submission 0, ends the episode, and does not reveal the right answer', async () => {
    const result = await call(await session(), 'submit', { answer: 287 });
    expect(result).toMatchObject({ reward: 0, finished: true });
    expect(textOf(result)).toMatch(/^Incorrect: 287 is not the right answer/);
    expect(JSON.stringify(result)).not.toContain('288');
  });

  it('reads numbers written as text, with a dollar sign or thousands separators', async () => {
    for (const answer of ['288', ' 288 ', '$288', '288.0']) {
      expect(await call(await session(), 'submit', { answer })).toMatchObject({ reward: 1 });
    }
    const state = await arithEnvironment.setup({ task: { ...task, answer: 1234 }, secrets: {}, sessionId: 's2' });
    expect(await call(state, 'submit', { answer: '1,234' })).toMatchObject({ reward: 1 });
  });

  it('refuses a non-numeric answer without ending the episode, so the model can retry', async () => {
    const state = await session();
    await expect(call(state, 'submit', { answer: 'about 300' })).rejects.toThrow(/must be a number/);
    expect(state.finished).toBe(false);
    expect(await call(state, 'submit', { answer: 288 })).toMatchObject({ reward: 1 });
  });

  it('refuses a second submission once the episode is finished', async () => {
    const state = await session();
    await call(state, 'submit', { answer: 1 });
    await expect(call(state, 'submit', { answer: 288 })).rejects.toThrow(/already finished/);
  });
});
