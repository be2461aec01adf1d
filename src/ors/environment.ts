import type { z } from 'zod';
import type { Block, Split } from './ors-schemas.js';

/**
 * How an ORS environment is written in TypeScript. The ORS server framework serves any
 * {@link EnvironmentDefinition} over the full HTTP API; built-in environments live in
 * `adapters/environments/`.
 *
 * One session = one episode = one `State`, made by `setup` from the task and torn down by `teardown`.
 */

/** What a tool returns on success. Omitted fields default to the ORS wire defaults. */
export interface ToolResult {
  blocks: Block[];
  reward?: number | null;
  finished?: boolean;
  metadata?: Record<string, unknown> | null;
}

/**
 * Thrown by a tool for an *expected* failure (wrong input, file not found, wrong answer format):
 * served as `end` with `{"ok": false, "error": message}`. Any other exception is a server-level
 * failure, served as `event: error`.
 */
export class ToolFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

export interface ToolContext<State> {
  state: State;
  sessionId: string;
  /** Aborted when the session is deleted or the server closes; a tool never outlives its session. */
  signal: AbortSignal;
}

export interface ToolDefinition<State, Input = unknown> {
  name: string;
  description: string;
  /** Validates the call's input and is served as `input_schema`; null when the tool takes no input. */
  input: z.ZodType<Input> | null;
  run(input: Input, context: ToolContext<State>): ToolResult | Promise<ToolResult>;
}

/** Tasks addressed by split and index; `count` bounds the index. */
export interface TaskSource<Task> {
  count(split: string): number;
  get(split: string, index: number): Task;
}

export interface SetupArgs<Task> {
  task: Task;
  secrets: Record<string, unknown>;
  sessionId: string;
  /**
   * Aborted when the session is deleted (or reaped, or the server closes) while setup still runs;
   * a long setup should stop then. The ORS server always sets it; optional so direct callers need not.
   */
  signal?: AbortSignal;
}

export interface EnvironmentDefinition<Task = unknown, State = unknown> {
  name: string;
  description?: string;
  splits: Split[];
  tasks: TaskSource<Task>;
  /** Validates a `task_spec` given to `/create`; a spec that fails is a 400. */
  taskSchema: z.ZodType<Task>;
  /** Shared tools, listed by `/{env}/tools` and `/{env}/task_tools`. */
  // biome-ignore lint/suspicious/noExplicitAny: each tool has its own Input type, checked where it is defined.
  tools: ToolDefinition<State, any>[];
  /** Task-specific tools, listed only by `/{env}/task_tools` of a session. */
  // biome-ignore lint/suspicious/noExplicitAny: as `tools`.
  taskTools?(state: State): ToolDefinition<State, any>[];
  /** Builds the episode's state; runs asynchronously after `/create`, and session endpoints wait for it. */
  setup(args: SetupArgs<Task>): State | Promise<State>;
  prompt(state: State): Block[] | Promise<Block[]>;
  teardown?(state: State): void | Promise<void>;
}

/** Identity helper that lets TypeScript infer `Task` and `State` from the definition. */
export function defineEnvironment<Task, State>(
  definition: EnvironmentDefinition<Task, State>,
): EnvironmentDefinition<Task, State> {
  return definition;
}

/** Identity helper that infers a tool's input type from its zod schema. */
export function defineTool<State, Input>(definition: ToolDefinition<State, Input>): ToolDefinition<State, Input> {
  return definition;
}

/** A {@link TaskSource} over fixed lists, one per split. */
export function taskList<Task>(lists: Record<string, readonly Task[]>): TaskSource<Task> {
  return {
    count: (split) => lists[split]?.length ?? 0,
    get: (split, index) => {
      const task = lists[split]?.[index];
      if (task === undefined) throw new RangeError(`no task ${index} in split "${split}"`);
      return task;
    },
  };
}
