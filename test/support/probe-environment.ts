import { z } from 'zod';
import { defineEnvironment, defineTool, ToolFailure, taskList } from '../../src/ors/environment.js';

interface ProbeState {
  calls: number;
}

/**
 * A tiny ORS environment for runs tests: `sleep` waits (honouring the session's abort), `echo`
 * returns its text, `fail` fails as a tool, `crash` throws, `score` gives a reward and may finish.
 */
export const probeEnvironment = defineEnvironment<{ label: string }, ProbeState>({
  name: 'probe',
  splits: [{ name: 'train', type: 'train' }],
  tasks: taskList({ train: [{ label: 'one' }, { label: 'two' }, { label: 'three' }] }),
  taskSchema: z.object({ label: z.string() }),
  tools: [
    defineTool<ProbeState, { ms: number }>({
      name: 'sleep',
      description: 'Wait for ms milliseconds.',
      input: z.object({ ms: z.number().int().nonnegative() }),
      run: async ({ ms }, { signal }) => {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              reject(new Error('session closed'));
            },
            { once: true },
          );
        });
        return { blocks: [{ type: 'text', text: `slept ${ms} ms`, detail: null }] };
      },
    }),
    defineTool<ProbeState, { text: string }>({
      name: 'echo',
      description: 'Return the text.',
      input: z.object({ text: z.string() }),
      run: ({ text }, { state }) => {
        state.calls++;
        return { blocks: [{ type: 'text', text, detail: null }] };
      },
    }),
    defineTool<ProbeState, Record<string, never>>({
      name: 'fail',
      description: 'Fail as a tool.',
      input: null,
      run: () => {
        throw new ToolFailure('this tool always fails');
      },
    }),
    defineTool<ProbeState, { reward: number; finished: boolean }>({
      name: 'score',
      description: 'Score the episode.',
      input: z.object({ reward: z.number(), finished: z.boolean() }),
      run: ({ reward, finished }) => ({
        blocks: [{ type: 'text', text: `reward ${reward}`, detail: null }],
        reward,
        finished,
      }),
    }),
  ],
  setup: () => ({ calls: 0 }),
  prompt: () => [{ type: 'text', text: 'Probe the bridge.', detail: null }],
});
