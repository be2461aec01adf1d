import { describe, expect, it } from 'vitest';
import { readArithQuestion } from '../../../../adapters/models/offline/arith-question-reader.js';

const steps = (text: string) => {
  const read = readArithQuestion(text);
  if (!read.ok) throw new Error(read.reason);
  return read.plan.steps;
};

describe('readArithQuestion', () => {
  it.each([
    [
      'Maya buys 7 notebooks at 3 dollars each and 4 pens at 2 dollars each. How many dollars does she spend in total?',
      ['7 * 3 + 4 * 2'],
    ],
    [
      'Liam has 50 dollars. He buys 3 books at 12 dollars each and 2 mugs at 4 dollars each. How many dollars does he have left?',
      ['50 - (3 * 12 + 2 * 4)'],
    ],
    ['A train travels at 60 kilometres per hour for 4 hours. How many kilometres does it travel?', ['60 * 4']],
    [
      'A bus travels at 30 miles per hour for 1 hour, then at 50 miles per hour for 2 hours. How many miles does it travel in total?',
      ['30 * 1 + 50 * 2'],
    ],
    ['Noah has 84 marbles and shares them equally among 7 friends. How many marbles does each friend get?', ['84 / 7']],
    [
      'Ava has 84 cards, keeps 4 and shares the rest equally among 8 friends. How many cards does each friend get?',
      ['84 - 4', 'PREV / 8'],
    ],
    [
      'A bakery bakes 12 trays of 24 cookies. It sells 150 cookies and packs the rest into boxes of 6. How many boxes does it fill?',
      ['12 * 24 - 150', 'PREV / 6'],
    ],
    [
      'Mei collects 12 shells on Monday and 15 shells on Friday, then gives away 7. How many shells does she have now?',
      ['12 + 15 - 7'],
    ],
  ])('reads %j as calculator steps', (text, expected) => {
    expect(steps(text)).toEqual(expected);
  });

  it('ignores a budget when the question does not ask what is left', () => {
    expect(steps('Omar has 90 dollars. He buys 2 books at 10 dollars each. How many dollars does he spend?')).toEqual([
      '2 * 10',
    ]);
  });

  it('keeps the facts it read, in reading order, for its reasoning', () => {
    const read = readArithQuestion(
      'A bakery bakes 12 trays of 24 cookies. It sells 150 cookies and packs the rest into boxes of 6. How many boxes does it fill?',
    );
    expect(read.ok && read.plan).toMatchObject({
      question: 'How many boxes does it fill?',
      facts: ['12 trays of 24 make 12 * 24', '"sells 150" takes 150 away', 'groups of 6 mean dividing by 6'],
    });
  });

  it.each([
    [
      'In 5 years, Ava will be twice as old as she was 10 years ago. How old is Ava now?',
      /only answer "How many …\?" questions/,
    ],
    ['Compute the total.', /no question/],
    ['Priya runs 5 laps. How many laps does she run?', /do not understand the part "Priya runs 5 laps"/],
    ['How many apples are there?', /could not find any quantities/],
    ['Zoe has 40 stamps and 3 albums of 7 stickers. How many stamps does she have?', /do not understand the part/],
    ['It sells 5 cakes. How many cakes are left?', /takes 5 away before saying from what/],
  ])('refuses rather than guesses: %j', (text, reason) => {
    const read = readArithQuestion(text);
    expect(read.ok).toBe(false);
    expect(!read.ok && read.reason).toMatch(reason);
  });
});
