import { describe, expect, it } from 'vitest';
import { ArithTaskSchema, arithTask, arithTasks } from '../../../../adapters/environments/arith/arith-tasks.js';
import { ARITH_TEMPLATE_NAMES } from '../../../../adapters/environments/arith/arith-templates.js';

const all = (split: string) =>
  Array.from({ length: arithTasks.count(split) }, (_, index) => arithTasks.get(split, index));

describe('arith tasks', () => {
  it('has 1000 train and 200 test tasks and no other split', () => {
    expect(arithTasks.count('train')).toBe(1000);
    expect(arithTasks.count('test')).toBe(200);
    expect(arithTasks.count('validation')).toBe(0);
  });

  it('gives the same task for the same split and index, every time', () => {
    for (const [split, index] of [
      ['train', 0],
      ['train', 517],
      ['test', 199],
    ] as const) {
      expect(arithTask(split, index)).toEqual(arithTask(split, index));
    }
    expect(arithTask('train', 3)).toMatchObject({ id: 'train-0003' });
  });

  it('draws train and test independently', () => {
    const train = all('train')
      .slice(0, 200)
      .map((task) => task.question);
    const test = all('test').map((task) => task.question);
    const shared = test.filter((question) => train.includes(question));
    expect(shared.length).toBeLessThan(5);
  });

  it('makes every task a valid task_spec with a whole, non-negative answer, and survives a JSON round trip', () => {
    for (const task of [...all('train'), ...all('test')]) {
      expect(ArithTaskSchema.parse(JSON.parse(JSON.stringify(task)))).toEqual(task);
      expect(Number.isInteger(task.answer)).toBe(true);
      expect(task.answer).toBeGreaterThanOrEqual(0);
    }
  });

  it('uses every template, and gives exactly the indexes ending in 9 an ages problem', () => {
    const train = all('train');
    expect(new Set(train.map((task) => task.template))).toEqual(new Set(ARITH_TEMPLATE_NAMES));
    train.forEach((task, index) => expect(task.template === 'ages').toBe(index % 10 === 9));
    expect(all('test').filter((task) => task.template === 'ages')).toHaveLength(20);
  });

  it('gives ages problems the age that satisfies their equation', () => {
    for (const task of all('train').filter((entry) => entry.template === 'ages')) {
      const match = /^In (\d+) years, \S+ will be (twice|three times) as old as \w+ was (\d+) years ago\./.exec(
        task.question,
      );
      expect(match, task.question).not.toBeNull();
      const [ahead, times, ago] = [Number(match![1]), match![2] === 'twice' ? 2 : 3, Number(match![3])];
      expect(task.answer + ahead).toBe(times * (task.answer - ago));
    }
  });

  it('refuses unknown splits and indexes out of range with a RangeError naming the valid ones', () => {
    expect(() => arithTask('dev', 0)).toThrow(/use one of: train, test/);
    expect(() => arithTask('train', 1000)).toThrow(/tasks 0 to 999/);
    expect(() => arithTask('test', -1)).toThrow(RangeError);
    expect(() => arithTask('test', 1.5)).toThrow(RangeError);
  });

  it('accepts a hand-written task_spec with only a question and an answer', () => {
    expect(ArithTaskSchema.parse({ question: 'What is 2 + 2?', answer: 4 })).toEqual({
      id: 'custom',
      question: 'What is 2 + 2?',
      answer: 4,
    });
    expect(ArithTaskSchema.safeParse({ question: 'What is 2 + 2?' }).success).toBe(false);
    expect(ArithTaskSchema.safeParse({ question: '', answer: 4 }).success).toBe(false);
  });
});
