/**
 * Values made from a JSON Schema, for the offline model's tool calls in environments it does not
 * know: the plainest value the schema accepts, so a call goes through the tool's input check. Only
 * what a schema commonly says is read — `const`, `enum`, `default`, `examples`, `type`, bounds,
 * `required`, `items`, `anyOf`/`oneOf`/`allOf` and local `$ref`s — and a `pattern` or `format` it
 * cannot satisfy simply gets a value the tool may refuse (the model then moves on). Deterministic.
 */

type Schema = Record<string, unknown>;

/** Nesting followed at most: deeper (recursive) schemas get `null`. */
const MAX_DEPTH = 8;

/**
 * Arguments for a tool whose input schema is `schema`: an object holding each required property
 * (optional ones are left out). `hints` are strings from the prompt, tried in order for string
 * values before a made-up one (a quoted word of the task is more likely right than "example").
 */
export function argumentsFor(schema: Schema, hints: readonly string[] = []): Record<string, unknown> {
  const value = valueFor(schema, { root: schema, hints, depth: 0 });
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

interface Context {
  root: Schema;
  hints: readonly string[];
  depth: number;
}

function valueFor(schema: unknown, context: Context): unknown {
  if (!isSchema(schema) || context.depth > MAX_DEPTH) return null;
  const deeper = { ...context, depth: context.depth + 1 };
  if (typeof schema.$ref === 'string') return valueFor(resolveRef(schema.$ref, context.root), deeper);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const branches = schema[key];
    if (Array.isArray(branches) && branches.length > 0) {
      // A nullable field (`anyOf: [X, {type: null}]`) gets an X: null says nothing.
      const branch = branches.find((candidate) => !(isSchema(candidate) && candidate.type === 'null')) ?? branches[0];
      return valueFor(branch, deeper);
    }
  }
  switch (typeOf(schema)) {
    case 'object':
      return objectFor(schema, deeper);
    case 'array':
      return Array.from({ length: nonNegative(schema.minItems) }, () => valueFor(schema.items, deeper));
    case 'string':
      return stringFor(schema, context.hints);
    case 'integer':
      return numberFor(schema, true);
    case 'number':
      return numberFor(schema, false);
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** The schema's type: the first non-null one of a list, or what its keywords imply when it names none. */
function typeOf(schema: Schema): string | undefined {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((name) => name !== 'null') ?? type[0];
  if ('properties' in schema || 'required' in schema) return 'object';
  if ('items' in schema) return 'array';
  return undefined;
}

function objectFor(schema: Schema, context: Context): Record<string, unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [];
  const value: Record<string, unknown> = {};
  // defineProperty: a property named __proto__ is a property like any other, not the prototype.
  for (const name of required) {
    const property = Object.hasOwn(properties, name) ? properties[name] : {};
    Object.defineProperty(value, name, { value: valueFor(property, context), enumerable: true, writable: true });
  }
  return value;
}

/** The first hint the schema's length and pattern allow, else "example" cut or padded to its bounds. */
function stringFor(schema: Schema, hints: readonly string[]): string {
  const min = nonNegative(schema.minLength);
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Number.POSITIVE_INFINITY;
  const pattern = typeof schema.pattern === 'string' ? safeRegExp(schema.pattern) : undefined;
  const hint = hints.find((text) => text.length >= min && text.length <= max && (pattern?.test(text) ?? true));
  return hint ?? 'example'.padEnd(min, 'x').slice(0, Math.max(min, max));
}

/** 0 when the bounds allow it, else the bound nearest to it (inside it, for an exclusive one), on the `multipleOf` grid. */
function numberFor(schema: Schema, integer: boolean): number {
  const bound = (inclusive: unknown, exclusive: unknown) => ({
    inclusive: typeof inclusive === 'number' ? inclusive : undefined,
    // Draft 6 on writes an exclusive bound as a number; draft 4 as `true` beside the inclusive one.
    exclusive: typeof exclusive === 'number' ? exclusive : exclusive === true ? (inclusive as number) : undefined,
  });
  const low = bound(schema.minimum, schema.exclusiveMinimum);
  const high = bound(schema.maximum, schema.exclusiveMaximum);
  const step = typeof schema.multipleOf === 'number' && schema.multipleOf > 0 ? schema.multipleOf : integer ? 1 : 0;
  const above = (value: number) =>
    (low.inclusive === undefined || value >= low.inclusive) && (low.exclusive === undefined || value > low.exclusive);
  const below = (value: number) =>
    (high.inclusive === undefined || value <= high.inclusive) &&
    (high.exclusive === undefined || value < high.exclusive);
  const inside = (value: number) => above(value) && below(value);
  if (inside(0)) return 0;
  // 0 lies below the range (take its low end) or above it (its high end).
  const low0 = !above(0);
  const lowest = Math.max(low.inclusive ?? -Infinity, low.exclusive ?? -Infinity);
  const highest = Math.min(high.inclusive ?? Infinity, high.exclusive ?? Infinity);
  const end = low0 ? lowest : highest;
  if (step > 0) {
    const value = (low0 ? Math.ceil(end / step) : Math.floor(end / step)) * step;
    return inside(value) ? value : value + (low0 ? step : -step);
  }
  if (inside(end)) return end;
  // An exclusive end: one further in, or half-way to the other end when the range is narrower.
  const further = low0 ? end + 1 : end - 1;
  return inside(further) ? further : (lowest + highest) / 2;
}

/** `#/$defs/Name` (or `#/definitions/…`, any local JSON pointer) within `root`; undefined for another document. */
function resolveRef(ref: string, root: Schema): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (!isSchema(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

function isSchema(value: unknown): value is Schema {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function nonNegative(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value) : 0;
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}
