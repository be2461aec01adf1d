import type { SeededRandom } from '../seeded-random.js';

/**
 * The word-problem templates of the `arith` environment. Each one draws its numbers so the answer is
 * a whole number (divisions come out even, nothing goes negative).
 *
 * `ages` is phrased unlike the others on purpose: it needs an equation rather than a chain of
 * operations, and the offline model does not parse it, so rewards of offline runs vary. It is dealt
 * by position rather than by chance — exactly the tasks whose index ends in 9, a tenth of each split —
 * so the share is exact and a test can name the tasks the offline model must fail.
 */

/** The name of a template, kept in every task so results can be broken down by kind. */
export type ArithTemplateName =
  | 'shopping_total'
  | 'shopping_change'
  | 'distance'
  | 'sharing'
  | 'bakery'
  | 'collecting'
  | 'ages';

/** One generated problem. */
export interface GeneratedProblem {
  question: string;
  answer: number;
}

interface Template {
  name: ArithTemplateName;
  generate(random: SeededRandom): GeneratedProblem;
}

interface Person {
  name: string;
  pronoun: 'he' | 'she';
}

const PEOPLE: readonly Person[] = [
  { name: 'Maya', pronoun: 'she' },
  { name: 'Liam', pronoun: 'he' },
  { name: 'Noah', pronoun: 'he' },
  { name: 'Ava', pronoun: 'she' },
  { name: 'Priya', pronoun: 'she' },
  { name: 'Omar', pronoun: 'he' },
  { name: 'Mei', pronoun: 'she' },
  { name: 'Lucas', pronoun: 'he' },
  { name: 'Sofia', pronoun: 'she' },
  { name: 'Ethan', pronoun: 'he' },
  { name: 'Hana', pronoun: 'she' },
  { name: 'Tomás', pronoun: 'he' },
];
const ITEMS = [
  'notebooks',
  'pens',
  'apples',
  'tickets',
  'candles',
  'mugs',
  'books',
  'plants',
  'scarves',
  'batteries',
] as const;
const THINGS = ['marbles', 'stickers', 'cards', 'shells', 'stamps', 'coins', 'beads', 'pebbles'] as const;
const VEHICLES = ['train', 'bus', 'cyclist', 'ferry', 'truck', 'runner'] as const;
const UNITS = ['kilometres', 'miles'] as const;
const GOODS = ['cookies', 'muffins', 'rolls', 'buns', 'pretzels'] as const;
const KITCHENS = ['bakery', 'café', 'school kitchen', 'market stall'] as const;
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;
const BOX_SIZES = [4, 5, 6, 8, 10, 12] as const;

const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const hours = (count: number): string => `${count} hour${count === 1 ? '' : 's'}`;

/** Two different entries of `list`. */
function pickTwo<T>(random: SeededRandom, list: readonly T[]): [T, T] {
  const [first, second] = random.shuffle(list);
  return [first as T, second as T];
}

function purchases(random: SeededRandom): { text: string; cost: number } {
  const [item1, item2] = pickTwo(random, ITEMS);
  const a = random.int(2, 12);
  const p = random.int(2, 15);
  const b = random.int(2, 12);
  const q = random.int(2, 15);
  return { text: `${a} ${item1} at ${p} dollars each and ${b} ${item2} at ${q} dollars each`, cost: a * p + b * q };
}

/** The templates the offline model can read: a chain of operations in reading order. */
const CHAINED: readonly Template[] = [
  {
    name: 'shopping_total',
    generate(random) {
      const person = random.pick(PEOPLE);
      const bought = purchases(random);
      return {
        question: `${person.name} buys ${bought.text}. How many dollars does ${person.pronoun} spend in total?`,
        answer: bought.cost,
      };
    },
  },
  {
    name: 'shopping_change',
    generate(random) {
      const person = random.pick(PEOPLE);
      const bought = purchases(random);
      const budget = Math.ceil((bought.cost + random.int(1, 40)) / 5) * 5;
      return {
        question:
          `${person.name} has ${budget} dollars. ${capitalise(person.pronoun)} buys ${bought.text}. ` +
          `How many dollars does ${person.pronoun} have left?`,
        answer: budget - bought.cost,
      };
    },
  },
  {
    name: 'distance',
    generate(random) {
      const vehicle = random.pick(VEHICLES);
      const unit = random.pick(UNITS);
      const speed = random.int(4, 90);
      const time = random.int(1, 6);
      if (random.chance(0.5)) {
        return {
          question: `A ${vehicle} travels at ${speed} ${unit} per hour for ${hours(time)}. How many ${unit} does it travel?`,
          answer: speed * time,
        };
      }
      const speed2 = random.int(4, 90);
      const time2 = random.int(1, 5);
      return {
        question:
          `A ${vehicle} travels at ${speed} ${unit} per hour for ${hours(time)}, then at ${speed2} ${unit} per hour ` +
          `for ${hours(time2)}. How many ${unit} does it travel in total?`,
        answer: speed * time + speed2 * time2,
      };
    },
  },
  {
    name: 'sharing',
    generate(random) {
      const person = random.pick(PEOPLE);
      const things = random.pick(THINGS);
      const friends = random.int(2, 9);
      const each = random.int(2, 15);
      if (random.chance(0.4)) {
        const kept = random.int(1, 9);
        return {
          question:
            `${person.name} has ${friends * each + kept} ${things}, keeps ${kept} and shares the rest equally among ` +
            `${friends} friends. How many ${things} does each friend get?`,
          answer: each,
        };
      }
      return {
        question:
          `${person.name} has ${friends * each} ${things} and shares them equally among ${friends} friends. ` +
          `How many ${things} does each friend get?`,
        answer: each,
      };
    },
  },
  {
    name: 'bakery',
    generate(random) {
      const kitchen = random.pick(KITCHENS);
      const goods = random.pick(GOODS);
      const trays = random.int(3, 12);
      const perTray = random.int(6, 24);
      const boxSize = random.pick(BOX_SIZES);
      const baked = trays * perTray;
      const boxes = random.int(1, Math.floor((baked - 1) / boxSize));
      const sold = baked - boxes * boxSize;
      return {
        question:
          `A ${kitchen} bakes ${trays} trays of ${perTray} ${goods}. It sells ${sold} ${goods} and packs the rest ` +
          `into boxes of ${boxSize}. How many boxes does it fill?`,
        answer: boxes,
      };
    },
  },
  {
    name: 'collecting',
    generate(random) {
      const person = random.pick(PEOPLE);
      const things = random.pick(THINGS);
      const [day1, day2] = pickTwo(random, DAYS);
      const first = random.int(5, 40);
      const second = random.int(5, 40);
      const given = random.int(1, first + second - 1);
      return {
        question:
          `${person.name} collects ${first} ${things} on ${day1} and ${second} ${things} on ${day2}, then gives away ` +
          `${given}. How many ${things} does ${person.pronoun} have now?`,
        answer: first + second - given,
      };
    },
  },
];

/** The template that needs an equation. */
const AGES: Template = {
  name: 'ages',
  generate(random) {
    const person = random.pick(PEOPLE);
    // x + ahead = times * (x - ago) gives x = (ahead + times * ago) / (times - 1); for three times
    // the numerator must be even, so `ahead` is nudged to the right parity.
    const times = random.pick([2, 3]);
    const ago = random.int(1, 20);
    let ahead = random.int(1, 30);
    if (times === 3 && (ahead + 3 * ago) % 2 === 1) ahead += 1;
    return {
      question:
        `In ${ahead} years, ${person.name} will be ${times === 2 ? 'twice' : 'three times'} as old as ` +
        `${person.pronoun} was ${ago} years ago. How old is ${person.name} now?`,
      answer: (ahead + times * ago) / (times - 1),
    };
  },
};

/** Every template name, in a stable order. */
export const ARITH_TEMPLATE_NAMES: readonly ArithTemplateName[] = [...CHAINED, AGES].map((template) => template.name);

/** True for the task positions that get an `ages` problem: indexes ending in 9. */
export function isAgesIndex(index: number): boolean {
  return index % 10 === 9;
}

/** The problem for task `index`: `ages` at indexes ending in 9, otherwise a template drawn from `random`. */
export function generateProblem(
  index: number,
  random: SeededRandom,
): GeneratedProblem & { template: ArithTemplateName } {
  const template = isAgesIndex(index) ? AGES : random.pick(CHAINED);
  return { template: template.name, ...template.generate(random) };
}
