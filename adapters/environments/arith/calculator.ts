import { ToolFailure } from '../../../src/ors/environment.js';

/**
 * The `calculator` tool's evaluator: a recursive-descent parser over numbers, `+ - * /`, unary minus
 * and parentheses. It never hands text to `eval` or `Function`, so a model cannot run code through it.
 *
 *   expression := term (("+" | "-") term)*
 *   term       := unary (("*" | "/") unary)*
 *   unary      := ("-" | "+") unary | primary
 *   primary    := number | "(" expression ")"
 */

/** Longest expression accepted; longer input is a model gone astray, not arithmetic. */
export const MAX_EXPRESSION_LENGTH = 1000;
/** Deepest nesting of parentheses and unary signs; bounds the recursion so no input overflows the stack. */
const MAX_DEPTH = 100;

type Token = { kind: 'number'; value: number; at: number } | { kind: 'op'; op: string; at: number };

const HELP = 'The calculator accepts numbers, + - * /, parentheses and spaces, e.g. "(12 * 24 - 150) / 6".';

/**
 * Evaluates an arithmetic expression. Throws a {@link ToolFailure} naming the position of the problem
 * for empty or over-long input, unknown characters, malformed numbers, unbalanced parentheses,
 * division by zero, and results too large to represent.
 */
export function evaluateExpression(expression: string): number {
  if (expression.trim() === '') throw new ToolFailure(`The expression is empty. ${HELP}`);
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ToolFailure(
      `The expression is ${expression.length} characters long; the limit is ${MAX_EXPRESSION_LENGTH}. Split the work into smaller steps.`,
    );
  }
  const tokens = tokenize(expression);
  let position = 0;
  let depth = 0;

  const peek = (): Token | undefined => tokens[position];
  const describe = (token: Token | undefined): string =>
    token === undefined
      ? 'the end of the expression'
      : token.kind === 'number'
        ? `the number at position ${token.at + 1}`
        : `"${token.op}" at position ${token.at + 1}`;
  const isOp = (token: Token | undefined, ...ops: string[]): token is Token & { kind: 'op' } =>
    token !== undefined && token.kind === 'op' && ops.includes(token.op);

  const nested = <T>(parse: () => T): T => {
    if (++depth > MAX_DEPTH)
      throw new ToolFailure(`The expression nests deeper than ${MAX_DEPTH} levels. Simplify it.`);
    try {
      return parse();
    } finally {
      depth--;
    }
  };

  const parseExpression = (): number =>
    nested(() => {
      let value = parseTerm();
      for (let token = peek(); isOp(token, '+', '-'); token = peek()) {
        position++;
        const right = parseTerm();
        value = token.op === '+' ? value + right : value - right;
      }
      return value;
    });

  const parseTerm = (): number => {
    let value = parseUnary();
    for (let token = peek(); isOp(token, '*', '/'); token = peek()) {
      position++;
      const right = parseUnary();
      if (token.op === '/' && right === 0) {
        throw new ToolFailure(`Division by zero at position ${token.at + 1}. Check the divisor.`);
      }
      value = token.op === '*' ? value * right : value / right;
    }
    return value;
  };

  const parseUnary = (): number =>
    nested(() => {
      const token = peek();
      if (isOp(token, '-', '+')) {
        position++;
        const operand = parseUnary();
        return token.op === '-' ? -operand : operand;
      }
      return parsePrimary();
    });

  const parsePrimary = (): number => {
    const token = peek();
    if (token?.kind === 'number') {
      position++;
      return token.value;
    }
    if (isOp(token, '(')) {
      position++;
      const value = parseExpression();
      const close = peek();
      if (!isOp(close, ')'))
        throw new ToolFailure(
          `Expected ")" to close the "(" at position ${token.at + 1}, found ${describe(close)}. ${HELP}`,
        );
      position++;
      return value;
    }
    throw new ToolFailure(`Expected a number or "(", found ${describe(token)}. ${HELP}`);
  };

  const value = parseExpression();
  if (position < tokens.length) throw new ToolFailure(`Unexpected ${describe(peek())}. ${HELP}`);
  if (!Number.isFinite(value)) throw new ToolFailure('The result is too large to represent. Use smaller numbers.');
  return value;
}

/**
 * A result as text: integers as they are, other numbers rounded to 12 significant digits so that
 * binary floating point noise (0.1 + 0.2) does not reach the model.
 */
export function formatNumber(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(12)));
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|(\d+(?:\.\d+)?|\.\d+)|([-+*/()])|(.)/gsu;
  for (const match of expression.matchAll(pattern)) {
    const at = match.index;
    const [, number, op, other] = match;
    if (number !== undefined) {
      const previous = tokens[tokens.length - 1];
      // "2 3" or "2(3)" are typos more often than intent; refusing them keeps answers unambiguous.
      if (previous?.kind === 'number')
        throw new ToolFailure(`Missing operator before the number at position ${at + 1}. ${HELP}`);
      tokens.push({ kind: 'number', value: Number(number), at });
    } else if (op !== undefined) {
      tokens.push({ kind: 'op', op, at });
    } else if (other !== undefined) {
      throw new ToolFailure(`Unexpected character "${other}" at position ${at + 1}. ${HELP}`);
    }
  }
  return tokens;
}
