import { describe, expect, it } from 'vitest';
import { evaluateExpression, formatNumber } from '../../../../adapters/environments/arith/calculator.js';
import { ToolFailure } from '../../../../src/ors/environment.js';

describe('evaluateExpression', () => {
  it.each([
    ['2 + 3 * 4', 14],
    ['2 * 3 + 4 * 5', 26],
    ['10 - 4 - 3', 3],
    ['8 / 4 / 2', 1],
    ['100 - 10 * 3 / 2', 85],
  ])('gives * and / precedence over + and -, left to right within a level: %s = %d', (expression, value) => {
    expect(evaluateExpression(expression)).toBe(value);
  });

  it.each([
    ['(2 + 3) * 4', 20],
    ['((((7))))', 7],
    ['(12 * 24 - 150) / 6', 23],
    ['2 * (3 + (4 - 1) * 2)', 18],
  ])('evaluates parentheses first: %s = %d', (expression, value) => {
    expect(evaluateExpression(expression)).toBe(value);
  });

  it.each([
    ['-5 + 2', -3],
    ['--5', 5],
    ['3 * -2', -6],
    ['-(2 + 3)', -5],
    ['+4 - -4', 8],
    ['2 - -(1)', 3],
  ])('handles unary minus and plus: %s = %d', (expression, value) => {
    expect(evaluateExpression(expression)).toBe(value);
  });

  it('accepts decimals and spaces anywhere between tokens', () => {
    expect(evaluateExpression(' 7/2 ')).toBe(3.5);
    expect(evaluateExpression('.5 * 4')).toBe(2);
    expect(evaluateExpression('1.25+\t0.75')).toBe(2);
  });

  it.each(['1 / 0', '5 / (2 - 2)', '0 / 0'])('refuses division by zero with a ToolFailure: %s', (expression) => {
    expect(() => evaluateExpression(expression)).toThrow(ToolFailure);
    expect(() => evaluateExpression(expression)).toThrow(/Division by zero/);
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['2 +', /Expected a number/],
    ['abc', /Unexpected character "a" at position 1/],
    ['2 ** 3', /Expected a number or "\(", found "\*" at position 4/],
    ['(1 + 2', /Expected "\)"/],
    ['1 + 2)', /Unexpected "\)" at position 6/],
    ['2 3', /Missing operator/],
    ['1e5', /Unexpected character "e"/],
    ['process.exit(1)', /Unexpected character "p"/],
    ['2 ^ 3', /Unexpected character "\^"/],
    ['()', /Expected a number/],
  ])('refuses garbage with a ToolFailure that says what is wrong: %j', (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(ToolFailure);
    expect(() => evaluateExpression(expression)).toThrow(message);
  });

  it('refuses over-long input and deep nesting with a ToolFailure instead of overflowing the stack', () => {
    expect(() => evaluateExpression(`${'1+'.repeat(600)}1`)).toThrow(/the limit is 1000/);
    expect(() => evaluateExpression(`${'('.repeat(300)}1${')'.repeat(300)}`)).toThrow(/nests deeper than 100/);
    expect(() => evaluateExpression(`${'-'.repeat(500)}1`)).toThrow(ToolFailure);
  });

  it('refuses results too large to represent', () => {
    expect(() => evaluateExpression('9'.repeat(400))).toThrow(/too large/);
    expect(() => evaluateExpression(`${'9'.repeat(200)} * ${'9'.repeat(200)}`)).toThrow(/too large/);
  });
});

describe('formatNumber', () => {
  it('prints integers as they are and hides floating point noise', () => {
    expect(formatNumber(25)).toBe('25');
    expect(formatNumber(-3)).toBe('-3');
    expect(formatNumber(0.1 + 0.2)).toBe('0.3');
    expect(formatNumber(1 / 3)).toBe('0.333333333333');
  });
});
