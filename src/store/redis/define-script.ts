/** A Lua script of the Redis store: the names of its arguments, in the order the prelude maps them, and its body. */
export interface ScriptSpec {
  readonly args: readonly string[];
  /** A script that also takes a list after its named arguments reads it from `ARGV[REST]` on. */
  readonly rest?: true;
  readonly body: string;
}

/** A script with named arguments `args` (see `redis-scripts.ts`); `rest` when a list follows them. */
export const define = <const Args extends readonly string[]>(
  args: Args,
  body: string,
  rest?: true,
): { args: Args; body: string; rest?: true } => ({ args, body, ...(rest ? { rest } : {}) });
