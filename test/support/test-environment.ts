import { z } from 'zod';
import {
  defineEnvironment,
  defineTool,
  type EnvironmentDefinition,
  ToolFailure,
  taskList,
} from '../../src/ors/environment.js';

/**
 * A test-only ORS environment whose every behaviour a test can steer and observe: tools that succeed,
 * fail as tools (`ToolFailure`), crash, return invalid output, or wait until the test releases them;
 * a setup that can fail or wait for the test; a record of setups, teardowns and tool runs.
 */

/** A promise with its resolve function, for waits that the test ends by an event, never by a clock. */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

/** A new {@link Deferred}. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const TaskSchema = z.strictObject({
  question: z.string(),
  /** `setup` throws. */
  fail_setup: z.boolean().optional(),
  /** `setup` waits until the test calls `probe.releaseSetup(hold_setup)`. */
  hold_setup: z.string().optional(),
});
export type TestTask = z.infer<typeof TaskSchema>;

export interface TestState {
  question: string;
  sessionId: string;
}

/** What the test environment lets a test see and steer. */
export interface TestProbe {
  /** Session ids whose setup has started, in order. */
  readonly setups: string[];
  /** Session ids torn down, in order. */
  readonly teardowns: string[];
  /** How many times each tool has started running. */
  readonly runs: Map<string, number>;
  /** Resolves (with the tool's abort signal) once the `wait` tool called with `key` runs. */
  started(key: string): Promise<AbortSignal>;
  /** Lets the `wait` tool called with `key` return `text`. */
  release(key: string, text: string): void;
  /** Resolves with how the `wait` tool called with `key` ended: `returned` or `aborted`. */
  ended(key: string): Promise<'returned' | 'aborted'>;
  /** Resolves once a setup holding on `key` has started. */
  setupStarted(key: string): Promise<void>;
  /** Lets a setup holding on `key` finish. */
  releaseSetup(key: string): void;
}

export const TEST_TASKS = {
  train: [{ question: 'What is 1+1?' }, { question: 'What is 2+2?' }, { question: 'What is 3+3?' }],
  test: [{ question: 'What is 10*10?' }],
} satisfies Record<string, TestTask[]>;

/** A fresh test environment named `name`, and its probe. */
export function createTestEnvironment(name = 'testenv'): {
  environment: EnvironmentDefinition<TestTask, TestState>;
  probe: TestProbe;
} {
  const gates = new Map<string, Deferred<unknown>>();
  const gate = <T>(key: string): Deferred<T> => {
    let entry = gates.get(key);
    if (entry === undefined) {
      entry = deferred<unknown>();
      gates.set(key, entry);
    }
    return entry as Deferred<T>;
  };
  const probe: TestProbe = {
    setups: [],
    teardowns: [],
    runs: new Map(),
    started: (key) => gate<AbortSignal>(`started:${key}`).promise,
    release: (key, text) => gate<string>(`release:${key}`).resolve(text),
    ended: (key) => gate<'returned' | 'aborted'>(`ended:${key}`).promise,
    setupStarted: (key) => gate<void>(`setup-started:${key}`).promise,
    releaseSetup: (key) => gate<void>(`setup:${key}`).resolve(),
  };
  const counted = (tool: string) => probe.runs.set(tool, (probe.runs.get(tool) ?? 0) + 1);

  const echo = defineTool<TestState, { text: string; reward?: number; finished?: boolean }>({
    name: 'echo',
    description: 'Answers with the given text.',
    input: z.strictObject({ text: z.string(), reward: z.number().optional(), finished: z.boolean().optional() }),
    run: (input) => {
      counted('echo');
      return {
        blocks: [{ type: 'text', text: input.text, detail: null }],
        reward: input.reward,
        finished: input.finished,
      };
    },
  });

  const wait = defineTool<TestState, { key: string }>({
    name: 'wait',
    description: 'Returns only when the test releases it (or the session ends).',
    input: z.strictObject({ key: z.string() }),
    run: async ({ key }, { signal }) => {
      counted('wait');
      gate<AbortSignal>(`started:${key}`).resolve(signal);
      const aborted = new Promise<never>((_, reject) => {
        signal.addEventListener('abort', () => reject(signal.reason), { once: true });
      });
      try {
        const text = await Promise.race([gate<string>(`release:${key}`).promise, aborted]);
        gate<string>(`ended:${key}`).resolve('returned');
        return { blocks: [{ type: 'text', text, detail: null }], reward: 1, finished: true };
      } catch (error) {
        gate<string>(`ended:${key}`).resolve('aborted');
        throw error;
      }
    },
  });

  const refuse = defineTool<TestState, Record<string, never>>({
    name: 'refuse',
    description: 'Fails as a tool does when the input is wrong.',
    input: z.strictObject({}),
    run: () => {
      counted('refuse');
      throw new ToolFailure('wrong answer format: expected a number');
    },
  });

  const crash = defineTool<TestState, Record<string, never>>({
    name: 'crash',
    description: 'Throws an unexpected error.',
    input: z.strictObject({}),
    run: () => {
      counted('crash');
      throw new Error('disk on fire');
    },
  });

  const garbage = defineTool<TestState, unknown>({
    name: 'garbage',
    description: 'Returns something that is not a tool result.',
    input: null,
    run: () => {
      counted('garbage');
      return { blocks: [{ type: 'text' }] } as never;
    },
  });

  const noInput = defineTool<TestState, unknown>({
    name: 'noop',
    description: 'Takes no input.',
    input: null,
    run: (input) => {
      counted('noop');
      return { blocks: [{ type: 'text', text: `got ${JSON.stringify(input)}`, detail: null }] };
    },
  });

  const titled = defineTool<TestState, { title: string; count: number }>({
    name: 'describe',
    description: 'Has a property literally named title.',
    input: z.object({ title: z.string().describe('the title of the thing'), count: z.number().int().default(1) }),
    run: ({ title, count }) => {
      counted('describe');
      return { blocks: [{ type: 'text', text: `${title} x${count}`, detail: null }] };
    },
  });

  const environment = defineEnvironment<TestTask, TestState>({
    name,
    description: 'A steerable environment for the ORS server tests.',
    splits: [
      { name: 'train', type: 'train' },
      { name: 'test', type: 'test' },
    ],
    tasks: taskList<TestTask>(TEST_TASKS),
    taskSchema: TaskSchema,
    tools: [echo, wait, refuse, crash, garbage, noInput, titled],
    taskTools: (state) => [
      defineTool<TestState, unknown>({
        name: 'hint',
        description: `A hint for "${state.question}".`,
        input: null,
        run: () => ({ blocks: [{ type: 'text', text: `think about ${state.question}`, detail: null }] }),
      }),
    ],
    setup: async ({ task, sessionId }) => {
      probe.setups.push(sessionId);
      if (task.hold_setup !== undefined) {
        gate<void>(`setup-started:${task.hold_setup}`).resolve();
        await gate<void>(`setup:${task.hold_setup}`).promise;
      }
      if (task.fail_setup) throw new Error('no sandbox available');
      return { question: task.question, sessionId };
    },
    prompt: (state) => [{ type: 'text', text: state.question, detail: null }],
    teardown: (state) => {
      probe.teardowns.push(state.sessionId);
    },
  });
  return { environment, probe };
}
