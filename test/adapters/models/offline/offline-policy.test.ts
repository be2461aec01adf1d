import { describe, expect, it } from 'vitest';
import { arithEnvironment } from '../../../../adapters/environments/arith/arith-environment.js';
import { createWorkspaceEnvironment } from '../../../../adapters/environments/workspace/workspace-environment.js';
import { decideNextTurn, type OfflineDecision } from '../../../../adapters/models/offline/offline-policy.js';
import { slipRate } from '../../../../adapters/models/offline/sampling-noise.js';
import type { Message, ToolDefinition } from '../../../../src/models/conversation.js';
import { toolDefinitionOf } from './play-in-process.js';

const arithTools = arithEnvironment.tools.map(toolDefinitionOf);
const workspaceTools = createWorkspaceEnvironment({ slowToolMs: 0 }).tools.map(toolDefinitionOf);
const hintTool: ToolDefinition = {
  name: 'get_hint',
  description: 'hint',
  inputSchema: { type: 'object', properties: {} },
};

type Step = [name: string, args: Record<string, unknown>, result: string, isError?: boolean];

/** A conversation: the prompt, then one assistant tool call and its result per step. */
function conversation(promptText: string, steps: readonly Step[]): Message[] {
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: promptText }] }];
  steps.forEach(([name, args, result, isError = false], index) => {
    const id = `call_${index + 1}_0`;
    messages.push({
      role: 'assistant',
      content: '',
      reasoning: [],
      toolCalls: [{ id, name, arguments: JSON.stringify(args) }],
    });
    messages.push({ role: 'tool', toolCallId: id, toolName: name, content: [{ type: 'text', text: result }], isError });
  });
  return messages;
}

function decide(
  messages: Message[],
  tools: ToolDefinition[],
  sampling: { temperature?: number; seed?: number } = {},
): OfflineDecision {
  return decideNextTurn({ messages, tools, temperature: sampling.temperature ?? 0, seed: sampling.seed ?? 0 });
}

const call = (decision: OfflineDecision) => {
  expect(decision.toolCalls).toHaveLength(1);
  const [first] = decision.toolCalls;
  return { name: first!.name, args: JSON.parse(first!.arguments) as Record<string, unknown> };
};

const BAKERY =
  'A bakery bakes 12 trays of 24 cookies. It sells 150 cookies and packs the rest into boxes of 6. How many boxes does it fill?';
const WORKSPACE_PROMPT =
  'This workspace holds 3 files. Find the value recorded for `cache_ttl` in these files and submit it exactly as written.';

describe('the offline policy on arith conversations', () => {
  it('computes step by step, feeding each calculator result into the next step, then submits', () => {
    expect(call(decide(conversation(BAKERY, []), arithTools))).toEqual({
      name: 'calculator',
      args: { expression: '12 * 24 - 150' },
    });
    const afterFirst = conversation(BAKERY, [['calculator', { expression: '12 * 24 - 150' }, '12 * 24 - 150 = 138']]);
    expect(call(decide(afterFirst, arithTools))).toEqual({ name: 'calculator', args: { expression: '138 / 6' } });
    const afterSecond = conversation(BAKERY, [
      ['calculator', { expression: '12 * 24 - 150' }, '12 * 24 - 150 = 138'],
      ['calculator', { expression: '138 / 6' }, '138 / 6 = 23'],
    ]);
    const submit = decide(afterSecond, arithTools);
    expect(call(submit)).toEqual({ name: 'submit', args: { answer: 23 } });
    expect(submit.text).toBe('The answer is 23.');
  });

  it('believes the calculator: a different result changes what it submits', () => {
    const messages = conversation(BAKERY, [
      ['calculator', { expression: '12 * 24 - 150' }, '12 * 24 - 150 = 60'],
      ['calculator', { expression: '60 / 6' }, '60 / 6 = 10'],
    ]);
    expect(call(decide(messages, arithTools))).toEqual({ name: 'submit', args: { answer: 10 } });
  });

  it('retries a rejected calculator step once, written differently, and gives up in text after a second rejection', () => {
    const once = conversation(BAKERY, [['calculator', { expression: '12 * 24 - 150' }, 'Unexpected character', true]]);
    const retry = decide(once, arithTools);
    expect(call(retry)).toEqual({ name: 'calculator', args: { expression: '(12)*(24)-(150)' } });
    expect(retry.reasoning).toContain('rejected');
    const twice = conversation(BAKERY, [
      ['calculator', { expression: '12 * 24 - 150' }, 'Unexpected character', true],
      ['calculator', { expression: '(12)*(24)-(150)' }, 'Still broken', true],
    ]);
    const gaveUp = decide(twice, arithTools);
    expect(gaveUp.toolCalls).toEqual([]);
    expect(gaveUp.text).toBe('I could not finish the calculation: Still broken');
  });

  it('resubmits a refused answer once as text, then gives up in text', () => {
    const steps: Step[] = [
      ['calculator', { expression: '12 * 24 - 150' }, '12 * 24 - 150 = 138'],
      ['calculator', { expression: '138 / 6' }, '138 / 6 = 23'],
      ['submit', { answer: 23 }, 'The answer must be a number', true],
    ];
    expect(call(decide(conversation(BAKERY, steps), arithTools))).toEqual({ name: 'submit', args: { answer: '23' } });
    const refusedTwice = decide(
      conversation(BAKERY, [...steps, ['submit', { answer: '23' }, 'Nope', true]]),
      arithTools,
    );
    expect(refusedTwice.toolCalls).toEqual([]);
    expect(refusedTwice.text).toBe('I could not submit my answer: Nope');
  });

  it('reports the verdict after the submit result says the episode is finished', () => {
    const done = conversation(BAKERY, [
      ['submit', { answer: 22 }, 'Incorrect: 22 is not the right answer. The episode is finished.'],
    ]);
    expect(decide(done, arithTools)).toMatchObject({
      toolCalls: [],
      text: 'I submitted 22, and it was marked incorrect.',
    });
  });

  it('says in text, without tool calls, when it cannot read the problem', () => {
    const decision = decide(
      conversation('In 5 years, Ava will be twice as old as she was 10 years ago. How old is Ava now?', []),
      arithTools,
    );
    expect(decision.toolCalls).toEqual([]);
    expect(decision.text).toBe(
      `I can't solve this problem. I can only answer "How many …?" questions, and this one asks "How old is Ava now?"`,
    );
    expect(decision.reasoning).not.toBe('');
  });
});

describe('the offline policy on workspace conversations', () => {
  const listing = '3 files:\nconfig/app.ini (40 bytes)\nlogs/a.log (90 bytes)\nnotes/todo.md (30 bytes)';
  const hits = [
    '4 lines contain "cache_ttl" outside archive/:',
    'config/app.ini:2: cache_ttl_previous = 10',
    'config/app.ini:3: legacy_cache_ttl = 5',
    'logs/a.log:7: 2024-03-01T00:00:00Z INFO  recorded cache_ttl=amber-1234 (source=orders)',
    'notes/todo.md:3: - The value recorded for cache_ttl is 77.',
  ].join('\n');

  it('lists, searches, reads the file whose line records the exact key (not a longer key containing it), and submits its value', () => {
    expect(call(decide(conversation(WORKSPACE_PROMPT, []), workspaceTools))).toEqual({ name: 'list_files', args: {} });
    const listed: Step[] = [['list_files', {}, listing]];
    expect(call(decide(conversation(WORKSPACE_PROMPT, listed), workspaceTools))).toEqual({
      name: 'search',
      args: { pattern: 'cache_ttl' },
    });
    const searched: Step[] = [...listed, ['search', { pattern: 'cache_ttl' }, hits]];
    expect(call(decide(conversation(WORKSPACE_PROMPT, searched), workspaceTools))).toEqual({
      name: 'read_file',
      args: { path: 'logs/a.log' },
    });
    const read: Step[] = [
      ...searched,
      [
        'read_file',
        { path: 'logs/a.log' },
        'x\nold_cache_ttl=3\ncache_ttl_previous=1\nrecorded cache_ttl=amber-1234 (source=orders)\n',
      ],
    ];
    const submit = decide(conversation(WORKSPACE_PROMPT, read), workspaceTools);
    expect(call(submit)).toEqual({ name: 'submit', args: { answer: 'amber-1234' } });
    expect(submit.text).toBe('The value recorded for cache_ttl is amber-1234.');
  });

  it('moves on to the next candidate file when read_file fails', () => {
    const steps: Step[] = [
      ['list_files', {}, listing],
      ['search', { pattern: 'cache_ttl' }, hits],
      ['read_file', { path: 'logs/a.log' }, 'There is no file "logs/a.log".', true],
    ];
    expect(call(decide(conversation(WORKSPACE_PROMPT, steps), workspaceTools))).toEqual({
      name: 'read_file',
      args: { path: 'notes/todo.md' },
    });
  });

  it('retries a failed list_files once, then gives up in text', () => {
    const once: Step[] = [['list_files', {}, 'disk on fire', true]];
    expect(call(decide(conversation(WORKSPACE_PROMPT, once), workspaceTools))).toEqual({
      name: 'list_files',
      args: {},
    });
    const twice = decide(
      conversation(WORKSPACE_PROMPT, [...once, ['list_files', {}, 'still on fire', true]]),
      workspaceTools,
    );
    expect(twice).toMatchObject({ toolCalls: [], text: 'I could not list the files: still on fire' });
  });

  it('asks for a hint when one is offered and nothing matched, then searches deep, then gives up when even that finds nothing', () => {
    const none =
      'No lines contain "cache_ttl" outside archive/. Files under archive/ are searched only with deep: true (slow).';
    const searched: Step[] = [
      ['list_files', {}, listing],
      ['search', { pattern: 'cache_ttl' }, none],
    ];
    expect(call(decide(conversation(WORKSPACE_PROMPT, searched), [...workspaceTools, hintTool]))).toEqual({
      name: 'get_hint',
      args: {},
    });
    expect(call(decide(conversation(WORKSPACE_PROMPT, searched), workspaceTools))).toEqual({
      name: 'search',
      args: { pattern: 'cache_ttl', deep: true },
    });
    const hinted: Step[] = [...searched, ['get_hint', {}, 'It is in archive/.']];
    const deep = decide(conversation(WORKSPACE_PROMPT, hinted), [...workspaceTools, hintTool]);
    expect(call(deep)).toEqual({ name: 'search', args: { pattern: 'cache_ttl', deep: true } });
    expect(deep.reasoning).toContain('The hint says: It is in archive/.');
    const exhausted: Step[] = [
      ...searched,
      ['search', { pattern: 'cache_ttl', deep: true }, 'No lines contain "cache_ttl" in all files.'],
    ];
    expect(decide(conversation(WORKSPACE_PROMPT, exhausted), workspaceTools)).toMatchObject({
      toolCalls: [],
      text: "I can't find a value recorded for cache_ttl in these files.",
    });
  });

  it('mistypes the last digit of the value when it slips, as sampling noise', () => {
    const read: Step[] = [
      ['list_files', {}, listing],
      ['search', { pattern: 'cache_ttl' }, hits],
      ['read_file', { path: 'logs/a.log' }, 'recorded cache_ttl=amber-1234\n'],
    ];
    const submitted = new Set<unknown>();
    for (let seed = 0; seed < 40; seed++)
      submitted.add(
        call(decide(conversation(WORKSPACE_PROMPT, read), workspaceTools, { temperature: 2, seed })).args.answer,
      );
    expect(submitted).toEqual(new Set(['amber-1234', 'amber-1235']));
  });

  it('says it cannot help when the prompt names no key', () => {
    expect(decide(conversation('Tidy up these files.', []), workspaceTools)).toMatchObject({
      toolCalls: [],
      text: "I can't solve this task: I could not tell which value to look for.",
    });
  });
});

describe('the offline policy elsewhere', () => {
  const unknownTools: ToolDefinition[] = [
    {
      name: 'submit_word',
      description: 'Submit the word; ends the episode.',
      inputSchema: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    },
    {
      name: 'look',
      description: 'Look around.',
      inputSchema: {
        type: 'object',
        properties: {
          direction: { type: 'string', enum: ['north', 'south'] },
          steps: { type: 'integer', minimum: 1, maximum: 9 },
          careful: { type: 'boolean' },
          note: { type: 'string' },
        },
        required: ['direction', 'steps', 'careful'],
      },
    },
  ];
  const RIDDLE = 'Find the word "lantern" hidden in the room, then submit it.';

  it('tries each tool of an unknown environment once, arguments made from its schema, the one that ends the episode last', () => {
    const first = decide(conversation(RIDDLE, []), unknownTools);
    expect(first.toolCalls).toEqual([
      { id: 'call_1_0', name: 'look', arguments: '{"direction":"north","steps":1,"careful":false}' },
    ]);
    expect(first.reasoning).toContain('neither an arith nor a workspace task');
    const second = decide(
      conversation(RIDDLE, [['look', { direction: 'north', steps: 1, careful: false }, 'A dark room.']]),
      unknownTools,
    );
    // A string takes the first word the prompt quotes.
    expect(second.toolCalls).toEqual([{ id: 'call_2_0', name: 'submit_word', arguments: '{"word":"lantern"}' }]);
    expect(decide(conversation(RIDDLE, []), unknownTools)).toEqual(first);
  });

  it('answers in text once every tool was tried, saying which refused its arguments, so the run ends', () => {
    const decision = decide(
      conversation(RIDDLE, [
        ['look', { direction: 'north', steps: 1, careful: false }, 'A dark room.'],
        ['submit_word', { word: 'lantern' }, 'Not the right word.', true],
      ]),
      unknownTools,
    );
    expect(decision.toolCalls).toEqual([]);
    expect(decision.reasoning).toContain('submit_word refused the arguments');
    expect(decision.text).toMatch(/^I tried each tool once/);
  });

  it('says it can do nothing when an unknown task offers no tools', () => {
    const decision = decide(conversation('Write a poem about the sea.', []), []);
    expect(decision.toolCalls).toEqual([]);
    expect(decision.text).toMatch(/^I can't do anything here/);
  });

  it('slips with probability min(0.5, 0.2 × temperature), never at temperature 0', () => {
    expect([0, 0.5, 1, 2, 2.5].map(slipRate)).toEqual([0, 0.1, 0.2, 0.4, 0.5]);
    const messages = conversation(BAKERY, []);
    for (let seed = 0; seed < 50; seed++) {
      expect(call(decide(messages, arithTools, { temperature: 0, seed })).args).toEqual({
        expression: '12 * 24 - 150',
      });
    }
  });
});
