import type { FakePolicy } from '../../test/support/fake-vllm/fake-vllm-server.js';

/** Turns of the token-in benchmark's episode: each thinks a little, the first three call a tool, the fourth answers. */
export const TOKEN_IN_TURNS = 4;

const thought = 'I should check this with the tool before I answer, then look at what it says.';

/** What the fake model writes at each turn of the benchmark's episode, reasoning and tool calls as Qwen3 writes them. */
export const TOKEN_IN_POLICY: FakePolicy = ({ turn }) =>
  turn < TOKEN_IN_TURNS
    ? {
        text:
          `<think>\n${thought}\n</think>\n\nLet me compute step ${turn}.\n` +
          `<tool_call>\n{"name": "add", "arguments": {"a": ${turn}, "b": 40}}\n</tool_call>`,
      }
    : { text: `<think>\n${thought}\n</think>\n\nThe answer is 42, as the tool said each time.` };
