/** The last line of every {@link longMarkdownAnswer}: once it shows, the whole answer is on the page. */
export const LONG_ANSWER_LAST_LINE = 'That is the whole answer.';

/**
 * A long answer in the Markdown models write — headings, paragraphs with emphasis, links and inline
 * code, nested lists, task lists, tables, fenced code in several languages, quotes — about `chars`
 * characters long, the same every time, ending with {@link LONG_ANSWER_LAST_LINE}. For the chat
 * page's streaming tests and benchmark.
 */
export function longMarkdownAnswer(chars: number): string {
  const sections: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index++) {
    const section = SECTIONS[index % SECTIONS.length]!(index);
    sections.push(section);
    length += section.length + 2;
  }
  return [...sections, LONG_ANSWER_LAST_LINE].join('\n\n');
}

/**
 * `text` cut into `count` deltas of uneven sizes (in a fixed pattern, the largest five times the
 * smallest), as a model's stream cuts it: through words, markup and line breaks alike. `text` needs at
 * least two characters a delta for none of them to be empty.
 */
export function cutIntoDeltas(text: string, count: number): string[] {
  const weights = Array.from({ length: count }, (_, index) => 3 + ((index * 7) % 13));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const deltas: string[] = [];
  let sum = 0;
  let at = 0;
  for (const weight of weights) {
    sum += weight;
    const end = Math.round((text.length * sum) / total);
    deltas.push(text.slice(at, end));
    at = end;
  }
  return deltas;
}

const SECTIONS: Array<(index: number) => string> = [
  (index) =>
    `## Step ${index}: read the data\n\nFirst I open **the export** of run ${index} and check its _shape_; ` +
    `the \`load()\` helper reads it, as [the docs](https://example.com/docs/${index}) say.`,
  (index) =>
    `- Item ${index}.a with \`code\`\n- Item ${index}.b\n  - nested ${index}.b.1\n  - nested ${index}.b.2\n- Item ${index}.c ~~old~~ new`,
  (index) =>
    `| name | count | share |\n|:-----|------:|:-----:|\n| alpha | ${index} | ${index % 100} % |\n` +
    `| beta | ${index * 3} | ${(index * 3) % 100} % |\n| gamma | ${index * 7} | ${(index * 7) % 100} % |`,
  (index) =>
    `\`\`\`python\ndef score_${index}(rows):\n    """Sum the counts."""\n    return sum(row["count"] for row in rows) + ${index}\n\`\`\``,
  (index) =>
    `> Note ${index}: the numbers above are *estimates*.\n> They change when the data does.\n\n` +
    `1. Check the totals\n2. Compare with run ${index - 1}\n3. Write the summary`,
  (index) =>
    `\`\`\`ts\nexport function total${index}(values: number[]): number {\n  return values.reduce((sum, value) => sum + value, ${index});\n}\n\`\`\`\n\n` +
    `- [x] parsed\n- [ ] checked by a person`,
];
