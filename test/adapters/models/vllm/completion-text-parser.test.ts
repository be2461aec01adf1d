import { describe, expect, it } from 'vitest';
import {
  CompletionTextParser,
  type CompletionTextParserOptions,
} from '../../../../adapters/models/vllm/completion-text-parser.js';
import { REASONING_PARSERS } from '../../../../adapters/models/vllm/parsers/reasoning-parsers.js';
import { TOOL_PARSERS } from '../../../../adapters/models/vllm/parsers/tool-parsers.js';
import { settings } from '../../../../src/config/settings.js';
import type { ModelPart } from '../../../../src/models/model.js';
import { assistantFrom } from '../common/collect-parts.js';

const QWEN: CompletionTextParserOptions = { reasoning: 'qwen3', tool: 'hermes', promptOpensReasoning: false };

/** The parts `text` makes when it streams in `pieces` of that many characters (0: whole). */
function parse(text: string, options: Partial<CompletionTextParserOptions> = {}, pieces = 0): ModelPart[] {
  let ids = 0;
  const parser = new CompletionTextParser({ ...QWEN, newCallId: () => `call_${++ids}`, ...options });
  const parts: ModelPart[] = [];
  const size = pieces === 0 ? text.length || 1 : pieces;
  for (let at = 0; at < text.length; at += size) parts.push(...parser.push(text.slice(at, at + size)));
  parts.push(...parser.end());
  return parts;
}

/** What a turn comes to, whatever pieces it streamed in: the answer, reasoning and calls the orchestrator records. */
function outcome(parts: readonly ModelPart[]) {
  const message = assistantFrom(parts);
  const streamedReasoning = parts.map((part) => (part.type === 'reasoning-delta' ? part.delta : '')).join('');
  const streamedArguments = new Map<string, string>();
  for (const part of parts)
    if (part.type === 'tool-call-delta')
      streamedArguments.set(part.id, (streamedArguments.get(part.id) ?? '') + part.delta);
  return { ...message, streamedReasoning, streamedArguments: Object.fromEntries(streamedArguments) };
}

/** Checks that every way of cutting `text` into deltas gives the same outcome, and returns it. */
function sameInAnyPieces(text: string, options: Partial<CompletionTextParserOptions> = {}) {
  const whole = outcome(parse(text, options));
  for (const size of [1, 2, 3, 7]) expect(outcome(parse(text, options, size))).toEqual(whole);
  return whole;
}

describe('reading reasoning', () => {
  it('qwen3: a <think> block is reasoning, streamed and whole, and the answer after it is the text', () => {
    const result = sameInAnyPieces('<think>\nTwo and two.\n</think>\n\nThe answer is 4.');
    expect(result).toMatchObject({
      content: 'The answer is 4.',
      reasoning: [{ text: 'Two and two.' }],
      streamedReasoning: 'Two and two.',
      toolCalls: [],
    });
  });

  it('qwen3: a completion that starts inside a think block the generation prompt opened', () => {
    const result = sameInAnyPieces('Two and two.\n</think>\n\nFour.', { promptOpensReasoning: true });
    expect(result).toMatchObject({ content: 'Four.', reasoning: [{ text: 'Two and two.' }] });
  });

  it('qwen3: a completion without a think block is all answer', () => {
    expect(sameInAnyPieces('Four, <b>plainly</b>.')).toMatchObject({ content: 'Four, <b>plainly</b>.', reasoning: [] });
  });

  it('deepseek_r1: reasoning runs from the start to </think>, with or without the opening tag', () => {
    for (const text of ['Hmm.</think>Four.', '<think>Hmm.</think>Four.']) {
      expect(sameInAnyPieces(text, { reasoning: 'deepseek_r1' })).toMatchObject({
        content: 'Four.',
        reasoning: [{ text: 'Hmm.' }],
      });
    }
  });

  it('deepseek_r1: a completion cut inside its reasoning is all reasoning', () => {
    expect(sameInAnyPieces('Still thinking about', { reasoning: 'deepseek_r1' })).toMatchObject({
      content: '',
      reasoning: [{ text: 'Still thinking about' }],
    });
  });

  it('none: think tags are text like any other', () => {
    expect(sameInAnyPieces('<think>x</think>y', { reasoning: 'none' })).toMatchObject({
      content: '<think>x</think>y',
      reasoning: [],
    });
  });

  it('closes the reasoning block before the first piece of the answer', () => {
    const types = parse('<think>a</think>b').map((part) => part.type);
    expect(types).toEqual(['reasoning-delta', 'reasoning', 'text-delta']);
  });
});

describe('reading hermes tool calls', () => {
  it('streams a call as it is written and gives it whole with the arguments exactly as the model wrote them', () => {
    const text =
      '<think>\nAdd them.\n</think>\n\nLet me compute.\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "2 + 2"}}\n</tool_call>';
    const result = sameInAnyPieces(text);
    expect(result).toMatchObject({
      content: 'Let me compute.',
      reasoning: [{ text: 'Add them.' }],
      toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{"expression": "2 + 2"}' }],
      streamedArguments: { call_1: '{"expression": "2 + 2"}' },
    });
  });

  it('announces a call by name before its arguments, and the argument pieces come live', () => {
    const parts = parse('<tool_call>\n{"name": "submit", "arguments": {"answer": 42}}\n</tool_call>', {}, 4);
    const deltas = parts.filter((part) => part.type === 'tool-call-delta');
    expect(deltas[0]).toEqual({ type: 'tool-call-delta', id: 'call_1', name: 'submit', delta: '' });
    expect(deltas.length).toBeGreaterThan(3);
    expect(parts.at(-1)).toEqual({
      type: 'tool-call',
      call: { id: 'call_1', name: 'submit', arguments: '{"answer": 42}' },
    });
  });

  it('reads several calls of one turn, in order', () => {
    const text =
      '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n<tool_call>\n{"name": "b", "arguments": {"x": [1, {"y": "}"}]}}\n</tool_call>';
    expect(sameInAnyPieces(text).toolCalls).toEqual([
      { id: 'call_1', name: 'a', arguments: '{}' },
      { id: 'call_2', name: 'b', arguments: '{"x": [1, {"y": "}"}]}' },
    ]);
  });

  it('keeps a malformed call as a call with the text the model wrote, for the tool error to answer', () => {
    const result = sameInAnyPieces(
      '<tool_call>\n{"name": "calculator", "arguments": {"expression": 2 +}\n</tool_call>',
    );
    expect(result.toolCalls).toEqual([{ id: 'call_1', name: 'calculator', arguments: '{"expression": 2 +' }]);
    const nameless = sameInAnyPieces('<tool_call>\nnot json at all\n</tool_call>');
    expect(nameless.toolCalls).toEqual([{ id: 'call_1', name: '', arguments: 'not json at all' }]);
  });

  it('reads a call the completion ended inside of, rather than losing it', () => {
    expect(sameInAnyPieces('<tool_call>\n{"name": "a", "arguments": {"k": 1}}').toolCalls).toEqual([
      { id: 'call_1', name: 'a', arguments: '{"k": 1}' },
    ]);
  });

  it('takes arguments written as a JSON string as they are', () => {
    expect(sameInAnyPieces('<tool_call>{"name": "a", "arguments": "{\\"k\\": 1}"}</tool_call>').toolCalls).toEqual([
      { id: 'call_1', name: 'a', arguments: '{"k": 1}' },
    ]);
  });

  it('leaves text that only looks like the start of a tag as text', () => {
    expect(sameInAnyPieces('a <tool and <thinker> b').content).toBe('a <tool and <thinker> b');
  });
});

describe('the end of the turn', () => {
  it("never lets an end-of-turn token's text into the answer", () => {
    expect(sameInAnyPieces('Four.<|im_end|>').content).toBe('Four.');
    expect(sameInAnyPieces('<think>a</think>Four.<|endoftext|>').content).toBe('Four.');
  });

  it('drops the whitespace around the answer and between it and a call, and keeps what is inside', () => {
    expect(sameInAnyPieces('\n\nOne\n\ntwo.\n\n<tool_call>{"name": "a", "arguments": {}}</tool_call>\n').content).toBe(
      'One\n\ntwo.',
    );
  });
});

describe('the parser tables', () => {
  it('offer what the settings accept, so a setting can name each of them', () => {
    expect(Object.keys(REASONING_PARSERS).sort()).toEqual(['deepseek_r1', 'none', 'qwen3']);
    expect(Object.keys(TOOL_PARSERS).sort()).toEqual(['hermes']);
    expect(settings.vllm.reasoningParser.accepts).toBe(
      Object.keys(REASONING_PARSERS)
        .map((name) => `\`${name}\``)
        .join(', '),
    );
    expect(settings.vllm.toolParser.accepts).toBe('`hermes`');
  });
});
