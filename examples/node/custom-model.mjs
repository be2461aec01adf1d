#!/usr/bin/env node
/**
 * Bring your own model: a provider of your own, added to the bridge's built-in ones with
 * `startRunbridge({ providers })`, then one run played with it (plain Node 20 ESM). In a project of
 * your own, install the package first from a tarball built in a clone of this repository —
 * `npm ci && npm pack` there, then `npm install ./runbridge-*.tgz` — since its name is not on the npm
 * registry (see the README).
 *
 *   node examples/node/custom-model.mjs
 *
 * The model, `mine:calc`, plays `arith` on a question given whole (a task spec): it hands the
 * arithmetic it finds in the question to the `calculator` tool, then submits the value the tool
 * answered, which ends the episode. Any model does the same with the `Model` contract
 * (docs/models.md): read `request.messages` and `request.tools`, yield text and tool calls, end with
 * `usage` and exactly one `finish`. Prints the bridge's models and the run's turns, tool calls and
 * reward; exits 0 when the run completes with reward 1.
 */
import { loadConfig, RunbridgeError, startRunbridge } from 'runbridge';
import { createClient } from 'runbridge/client';

const task = {
  question: 'A crate holds 12 boxes of 8 pencils, and 4 more lie beside it: (12 * 8) + 4 pencils.',
  answer: 100,
};

/** @type {import('runbridge').ModelProvider} */
const mine = {
  name: 'mine', // models are called `mine:<name>`
  listedModels: ['calc'], // what GET /v1/models lists
  defaultModel: 'calc', // what a bare `mine` means
  create(name) {
    // A request naming another model is answered 400 unknown_model with this message.
    if (name !== 'calc')
      throw new RunbridgeError(`mine has one model, "mine:calc"; not "mine:${name}".`, { code: 'unknown_model' });
    return { id: 'mine:calc', stream: calcTurn };
  },
};

/**
 * One turn of `mine:calc`, decided from the conversation alone: the first turn computes, the next
 * submits the computed value; any later one (after a refused submit) answers in text, which ends the run.
 * @param {import('runbridge').ModelRequest} request
 * @returns {AsyncGenerator<import('runbridge').ModelPart>}
 */
async function* calcTurn({ messages, tools, signal }) {
  signal.throwIfAborted(); // a cancelled run aborts the signal: stop with its reason
  const results = messages.filter((message) => message.role === 'tool');
  const turn = messages.filter((message) => message.role === 'assistant').length;
  const call = (name, args) => ({ id: `call_${turn}`, name, arguments: JSON.stringify(args) });
  let text;
  let toolCall;
  if (results.length === 0) {
    const prompt = textOf(messages.find((message) => message.role === 'user'));
    const expression = prompt.match(/[\d(][\d\s+\-*/().]*[\d)]/g)?.sort((a, b) => b.length - a.length)[0];
    if (expression === undefined || !tools.some((tool) => tool.name === 'calculator')) {
      text = 'I find no arithmetic here.';
    } else {
      text = `Computing ${expression.trim()}. `;
      toolCall = call('calculator', { expression: expression.trim() });
    }
  } else if (results.length === 1) {
    const value = Number(textOf(results[0]).split('=').at(-1)); // "(12 * 8) + 4 = 100"
    text = `The calculator says ${value}. `;
    toolCall = call('submit', { answer: value });
  } else {
    text = 'The submit was refused; I stop here.';
  }
  // Text may stream in as many pieces as you like; a tool call comes whole (its deltas are optional).
  for (const word of text.split(/(?<= )/)) yield { type: 'text-delta', delta: word };
  if (toolCall) yield { type: 'tool-call', call: toolCall };
  yield { type: 'usage', usage: { inputTokens: 0, outputTokens: text.length } };
  yield { type: 'finish', reason: toolCall ? 'tool_calls' : 'stop' };
}

/** The text of a user or tool message (its content is a list of text and image parts). */
function textOf(message) {
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

// Port 0: any free port. `providers` adds to the configured ones (`offline` and those whose keys are set).
const config = loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1' });
const bridge = await startRunbridge({ config, providers: [mine] });
let exitCode = 1;
try {
  const client = createClient({ baseUrl: bridge.url });
  const models = await client.models.list();
  console.log(`models: ${models.data.map((model) => model.id).join(', ')}`);
  const run = await client.runs.create({ env: 'arith', model: 'mine:calc', task: { spec: task } });
  let said = '';
  for await (const event of client.runs.events(run.run_id)) {
    if (event.event === 'message.delta') said += event.delta;
    else if (event.event === 'turn.completed') {
      console.log(`turn ${event.turn}: ${said.trim()}`);
      said = '';
    } else if (event.event === 'tool.started') console.log(`  → ${event.tool} ${JSON.stringify(event.arguments)}`);
    else if (event.event === 'tool.completed') console.log(`  ← ${event.output} (reward ${event.reward})`);
    else if (event.event === 'run.completed') {
      console.log(`completed: reward ${event.reward}, ${event.turns} turns, stop ${event.stop_reason}`);
      if (event.reward === 1) exitCode = 0;
    } else if (event.event === 'run.failed') console.log(`failed: ${event.code}: ${event.error}`);
  }
} finally {
  await bridge.shutdown();
}
process.exitCode = exitCode;
