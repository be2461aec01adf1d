import { z } from 'zod';
import type { EnvironmentDefinition, ToolDefinition } from '../environment.js';
import { SplitSchema, type ToolSpec } from '../ors-schemas.js';
import { unknownEnvironment } from './ors-http-errors.js';
import { toolInputSchema } from './tool-input-schema.js';

/**
 * Environments differ in their `Task` and `State` types and are served side by side, so the server
 * can only hold them at the widest type; each one's own code stays fully typed where it is defined.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above; a definition is both produced and consumed in its State.
export type AnyEnvironment = EnvironmentDefinition<any, any>;
/** A tool of an {@link AnyEnvironment}: its `State` and `Input` are known only to its environment. */
// biome-ignore lint/suspicious/noExplicitAny: as AnyEnvironment.
export type AnyTool = ToolDefinition<any, any>;

/** An environment as served: its definition, the specs of its shared tools and its task schema, computed once. */
export interface ServedEnvironment {
  definition: AnyEnvironment;
  sharedToolSpecs: ToolSpec[];
  /** JSON Schema of what `/create` accepts as `task_spec` (`GET /{env}/task_schema`, docs/ors.md). */
  taskSchema: Record<string, unknown>;
}

/**
 * The environments one server serves, looked up by name without regard to case (as the reference
 * server does). The constructor checks each definition once, so a mistake in an environment stops
 * start-up with a message instead of failing its first request: at least one environment, unique
 * names that fit in a URL path segment, valid splits, at least one shared tool, unique tool names,
 * and tool inputs whose JSON Schema is an object.
 */
export class EnvironmentRegistry {
  readonly #byName = new Map<string, ServedEnvironment>();
  readonly #first: ServedEnvironment;

  constructor(environments: readonly AnyEnvironment[]) {
    if (environments.length === 0) throw new TypeError('An ORS server needs at least one environment to serve.');
    for (const environment of environments) {
      const key = environment.name.toLowerCase();
      if (!/^[a-z0-9][a-z0-9_.-]*$/.test(key)) {
        throw new TypeError(
          `Environment name ${JSON.stringify(environment.name)} must be letters, digits, "_", "." or "-", starting with a letter or digit.`,
        );
      }
      if (this.#byName.has(key))
        throw new TypeError(`Two environments are named ${JSON.stringify(environment.name)}; rename one.`);
      checkSplits(environment);
      if (environment.tools.length === 0)
        throw new TypeError(`Environment "${environment.name}" has no tools; add at least one.`);
      this.#byName.set(key, {
        definition: environment,
        sharedToolSpecs: toolSpecs(environment.tools, environment.name),
        // What a client may send, so defaults are optional; a check JSON Schema cannot say (a refine)
        // is left to `/create`, which validates with the zod schema itself.
        taskSchema: z.toJSONSchema(environment.taskSchema, { io: 'input', unrepresentable: 'any' }),
      });
    }
    this.#first = this.get(environments[0]!.name);
  }

  /** The names served, in the order the environments were given. */
  names(): string[] {
    return [...this.#byName.values()].map((served) => served.definition.name);
  }

  /** The environment called `name` (any case); throws a 404 error naming the served ones when there is none. */
  get(name: string): ServedEnvironment {
    const served = this.#byName.get(name.toLowerCase());
    if (served === undefined) throw unknownEnvironment(name, this.names());
    return served;
  }

  /** The first environment given: what `/create` uses when the body names none. */
  first(): ServedEnvironment {
    return this.#first;
  }
}

/** The wire specs of `tools`; throws a `TypeError` for duplicate names or a non-object input schema. */
export function toolSpecs(tools: readonly AnyTool[], environmentName: string): ToolSpec[] {
  const seen = new Set<string>();
  return tools.map((tool) => {
    if (seen.has(tool.name))
      throw new TypeError(`Environment "${environmentName}" has two tools named "${tool.name}"; rename one.`);
    seen.add(tool.name);
    const schema = toolInputSchema(tool.input);
    if (schema !== null && schema.type !== 'object') {
      throw new TypeError(
        `Tool "${tool.name}" of "${environmentName}" must take an object input (a z.object schema), or set input: null.`,
      );
    }
    return { name: tool.name, description: tool.description, input_schema: schema };
  });
}

function checkSplits(environment: AnyEnvironment): void {
  if (environment.splits.length === 0)
    throw new TypeError(`Environment "${environment.name}" has no splits; add at least one.`);
  for (const split of environment.splits) {
    const parsed = SplitSchema.safeParse(split);
    if (!parsed.success) {
      throw new TypeError(
        `Environment "${environment.name}" has an invalid split ${JSON.stringify(split)}: type must be train, validation or test.`,
      );
    }
  }
}
