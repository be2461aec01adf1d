/**
 * Reads an arithmetic word problem into a plan of calculator steps, the way the offline model
 * "understands" it. It knows a handful of phrasings (prices, speeds, batches, amounts, taking away,
 * sharing out, a budget) and chains them in reading order; the question must ask "How many …?".
 *
 * What it cannot read, by design: problems that need an equation rather than a chain of operations
 * (the `ages` problems of `arith`, "In 5 years, Ava will be twice as old as …"). It says so instead of
 * guessing, which is what makes offline rewards vary.
 */

/** Stands in a step's expression for the result of the step before it. */
export const PREVIOUS = 'PREV';

/** A problem understood: the question, the facts read (for reasoning) and the calculator steps. */
export interface ArithPlan {
  question: string;
  facts: string[];
  /** Expressions for the calculator, in order; later ones may contain {@link PREVIOUS}. */
  steps: string[];
}

/** A plan, or the reason (a sentence for the user) why the problem could not be read. */
export type ReadResult = { ok: true; plan: ArithPlan } | { ok: false; reason: string };

type Reading =
  | { kind: 'term'; expression: string; fact: string }
  | { kind: 'budget'; amount: number; fact: string }
  | { kind: 'subtract'; amount: number; fact: string }
  | { kind: 'divide'; by: number; fact: string };

interface Rule {
  pattern: RegExp;
  read(match: RegExpExecArray): Reading;
}

const n = (text: string | undefined): number => Number(text);

/** In priority order: a later rule never reads text an earlier one already claimed. */
const RULES: readonly Rule[] = [
  {
    pattern: /\b(\d+) ([a-z]+(?: [a-z]+)?) at (\d+) dollars? each\b/gi,
    read: ([, count, item, price]) => ({
      kind: 'term',
      expression: `${count} * ${price}`,
      fact: `${count} ${item} at ${price} dollars each cost ${count} * ${price} dollars`,
    }),
  },
  {
    pattern: /\bat (\d+) ([a-z]+) per hour for (\d+) hours?\b/gi,
    read: ([, speed, unit, time]) => ({
      kind: 'term',
      expression: `${speed} * ${time}`,
      fact: `${time} h at ${speed} ${unit} per hour cover ${speed} * ${time} ${unit}`,
    }),
  },
  {
    pattern: /\b(\d+) (trays|batches|crates|bags|boxes) of (\d+)\b/gi,
    read: ([, groups, noun, size]) => ({
      kind: 'term',
      expression: `${groups} * ${size}`,
      fact: `${groups} ${noun} of ${size} make ${groups} * ${size}`,
    }),
  },
  {
    pattern: /\bhas (\d+) dollars\b/gi,
    read: ([, amount]) => ({ kind: 'budget', amount: n(amount), fact: `the budget is ${amount} dollars` }),
  },
  {
    pattern: /\b(?:equally among|between) (\d+)\b|\binto (?:boxes|bags|groups|packs) of (\d+)\b/gi,
    read: ([, among, groupSize]) => {
      const by = among ?? groupSize;
      return {
        kind: 'divide',
        by: n(by),
        fact: among ? `sharing among ${by} means dividing by ${by}` : `groups of ${by} mean dividing by ${by}`,
      };
    },
  },
  {
    pattern: /\b(sells|gives away|keeps|eats|loses|spends|uses) (\d+)\b/gi,
    read: ([, verb, amount]) => ({
      kind: 'subtract',
      amount: n(amount),
      fact: `"${verb} ${amount}" takes ${amount} away`,
    }),
  },
  {
    pattern: /\b(?:has|collects|picks|gathers|finds) (\d+) ([a-z]+)\b/gi,
    read: ([, amount, noun]) => ({
      kind: 'term',
      expression: `${amount}`,
      fact: `there are ${amount} ${noun} to start with`,
    }),
  },
  {
    pattern: /\band (\d+) ([a-z]+) on ([a-z]+day)\b/gi,
    read: ([, amount, noun, day]) => ({
      kind: 'term',
      expression: `${amount}`,
      fact: `${amount} more ${noun} come on ${day}`,
    }),
  },
];

/** Reads `text` (a problem statement ending in a question) into a plan, or says why it cannot. */
export function readArithQuestion(text: string): ReadResult {
  const questions = text.match(/[^.?!\n]*\?/g);
  const question = questions?.at(-1)?.trim();
  if (question === undefined) return { ok: false, reason: 'I found no question in the text.' };
  if (!/^how many\b/i.test(question)) {
    return { ok: false, reason: `I can only answer "How many …?" questions, and this one asks "${question}"` };
  }
  const statement = text.slice(0, text.lastIndexOf(question));
  const { readings, unread } = readStatement(statement);
  // Numbers the reader skipped would make the plan silently wrong ("In 5 years … 7 years ago" has
  // numbers but no operation it knows), so any of them stops it.
  if (unread !== undefined)
    return { ok: false, reason: `I do not understand the part "${unread}", so I cannot set up the calculation.` };
  if (readings.length === 0)
    return { ok: false, reason: 'I could not find any quantities I know how to combine in the problem.' };
  return chain(question, readings);
}

/**
 * Every rule's matches over `statement`, earlier rules first, put back into reading order; and the
 * clause around the first number no rule read, if there is one.
 */
function readStatement(statement: string): { readings: Reading[]; unread: string | undefined } {
  const claimed: Array<[number, number]> = [];
  const found: Array<{ at: number; reading: Reading }> = [];
  for (const rule of RULES) {
    for (const match of statement.matchAll(rule.pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (claimed.some(([from, to]) => start < to && end > from)) continue;
      claimed.push([start, end]);
      found.push({ at: start, reading: rule.read(match as RegExpExecArray) });
    }
  }
  const skipped = [...statement.matchAll(/\d+/g)].find(
    (number) => !claimed.some(([from, to]) => number.index >= from && number.index < to),
  );
  let unread: string | undefined;
  if (skipped !== undefined) {
    const from = statement.lastIndexOf('.', skipped.index) + 1;
    const to = statement.indexOf('.', skipped.index);
    unread = statement.slice(from, to < 0 ? undefined : to).trim();
  }
  return { readings: found.sort((a, b) => a.at - b.at).map((entry) => entry.reading), unread };
}

/** Folds readings into calculator steps; a division starts a new step so every step stays small. */
function chain(question: string, readings: readonly Reading[]): ReadResult {
  const steps: string[] = [];
  const facts = readings.map((reading) => reading.fact);
  let stage = '';
  let budget: number | undefined;
  const flush = (): void => {
    if (stage !== '' && stage !== PREVIOUS) steps.push(stage);
    stage = PREVIOUS;
  };
  for (const reading of readings) {
    switch (reading.kind) {
      case 'term':
        stage = stage === '' ? reading.expression : `${stage} + ${reading.expression}`;
        break;
      case 'subtract':
        if (stage === '')
          return { ok: false, reason: `The problem takes ${reading.amount} away before saying from what.` };
        stage = `${stage} - ${reading.amount}`;
        break;
      case 'divide':
        if (stage === '') return { ok: false, reason: `The problem divides by ${reading.by} before saying what.` };
        if (stage !== PREVIOUS && !/^\d+$/.test(stage)) flush();
        stage = `${stage} / ${reading.by}`;
        flush();
        break;
      case 'budget':
        budget = reading.amount;
        break;
    }
  }
  // A budget matters only when the question asks what is left of it.
  if (budget !== undefined && /\bleft\b/i.test(question)) {
    if (stage === '' || stage === PREVIOUS)
      return { ok: false, reason: 'I could not tell what is spent from the budget.' };
    stage = `${budget} - ${/^\d+$/.test(stage) ? stage : `(${stage})`}`;
  }
  flush();
  if (steps.length === 0) return { ok: false, reason: 'I found nothing to calculate in the problem.' };
  return { ok: true, plan: { question, facts, steps } };
}
