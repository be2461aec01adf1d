// examples/ors/backwards.ts — an ORS environment of your own, served on 127.0.0.1:8090 (PORT):
//   npx tsx examples/ors/backwards.ts
//   ORS_URL=http://127.0.0.1:8090 npx runbridge run --env backwards
import { createOrsServer, defineEnvironment, defineTool, ToolFailure, taskList } from 'runbridge/ors';
import { z } from 'zod';

type Task = { word: string };
type State = { task: Task; done: boolean };

const spell = defineTool<State, { letters: string }>({
  name: 'spell',
  description: 'Submits the word spelled backwards; ends the episode with reward 1 if it is right.',
  input: z.object({ letters: z.string().max(100) }),
  run({ letters }, { state }) {
    if (state.done) throw new ToolFailure('The episode is over; open a new session.'); // the model is told
    state.done = true;
    const right = letters === [...state.task.word].reverse().join('');
    const text = right ? 'Right.' : `Wrong: "${letters}" is not "${state.task.word}" backwards.`;
    return { blocks: [{ type: 'text', text, detail: null }], reward: right ? 1 : 0, finished: true };
  },
});

const backwards = defineEnvironment({
  name: 'backwards',
  splits: [{ name: 'train', type: 'train' }],
  tasks: taskList({ train: [{ word: 'bridge' }, { word: 'reward' }] }),
  taskSchema: z.object({ word: z.string() }), // what /create accepts as a task_spec
  tools: [spell],
  setup: ({ task }) => ({ task, done: false }),
  prompt: ({ task }) => [{ type: 'text', text: `Spell "${task.word}" backwards with the spell tool.`, detail: null }],
});

const server = createOrsServer({ environments: [backwards] });
console.log(await server.listen(Number(process.env.PORT ?? 8090), '127.0.0.1')); // point ORS_URL of a bridge here
