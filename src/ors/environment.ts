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
  /** What the tool answers: text and image blocks, shown to the model as the tool's result. */
  blocks: Block[];
  /** The reward this call earned; null or absent when it earned none. */
  reward?: number | null;
  /** True when this call ended the episode (e.g. an answer was submitted); default false. */
  finished?: boolean;
  /** Free-form data for the client, not shown to the model. */
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

/** What a tool's `run` gets besides its input: the episode's state, the session id, and a signal that ends with the session. */
export interface ToolContext<State> {
  /** The episode's state, as `setup` made it; tools may change it. */
  state: State;
  /** The ORS session this call belongs to. */
  sessionId: string;
  /** Aborted when the session is deleted or the server closes; a tool never outlives its session. */
  signal: AbortSignal;
}

/** One tool of an environment: its name and description, the zod schema of its input, and what it does. */
export interface ToolDefinition<State, Input = unknown> {
  /** The name the model calls it by; unique within its environment. */
  name: string;
  /** What the tool does, for the model: when to call it and what it answers. */
  description: string;
  /** Validates the call's input and is served as `input_schema`; null when the tool takes no input. */
  input: z.ZodType<Input> | null;
  /** Does the work; throw a {@link ToolFailure} for an expected failure the model should hear about. */
  run(input: Input, context: ToolContext<State>): ToolResult | Promise<ToolResult>;
}

/** Tasks addressed by split and index; `count` bounds the index. */
export interface TaskSource<Task> {
  /** How many tasks `split` holds (0 for a split it does not have). */
  count(split: string): number;
  /** Task `index` of `split`; throws a `RangeError` when there is none. */
  get(split: string, index: number): Task;
}

/** What `setup` gets: the task, the secrets of `/create`, the session id, and a signal aborted when the session ends. */
export interface SetupArgs<Task> {
  /** The episode's task: one of `tasks`, or a `task_spec` that passed `taskSchema`. */
  task: Task;
  /** The secrets the client sent to `/create` (API keys for the environment's own services); never log them. */
  secrets: Record<string, unknown>;
  /** The ORS session being set up. */
  sessionId: string;
  /**
   * Aborted when the session is deleted (or reaped, or the server closes) while setup still runs;
   * a long setup should stop then. The ORS server always sets it; optional so direct callers need not.
   */
  signal?: AbortSignal;
}

/** An ORS environment in TypeScript: its splits and tasks, its tools, and how an episode is set up, prompted and torn down. */
export interface EnvironmentDefinition<Task = unknown, State = unknown> {
  /** The name clients address it by (letters, digits, `_`, `.`, `-`), matched without regard to case. */
  name: string;
  /** One line on what the episodes are about. */
  description?: string;
  /** The splits it offers; at least one. */
  splits: Split[];
  /** Its tasks by split and index. */
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
  /** The episode's opening prompt, given to the model before the first turn. */
  prompt(state: State): Block[] | Promise<Block[]>;
  /** Releases what `setup` acquired; runs once when the session ends, however it ends. */
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

/** A {@link TaskSource} over fixed lists, one per split (the object's own keys: `constructor` is no split). */
export function taskList<Task>(lists: Record<string, readonly Task[]>): TaskSource<Task> {
  const splits = new Map(Object.entries(lists));
  return {
    count: (split) => splits.get(split)?.length ?? 0,
    get: (split, index) => {
      const task = splits.get(split)?.[index];
      if (task === undefined) throw new RangeError(`no task ${index} in split "${split}"`);
      return task;
    },
  };
}
