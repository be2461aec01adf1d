/**
 * Keywords whose value is one subschema. Walking only these (and the maps and lists below) is what
 * keeps a *property* named like a keyword (`title`, `$schema`, `type`) out of reach of the cleaning.
 */
const SUBSCHEMA_KEYWORDS = [
  'additionalProperties',
  'unevaluatedProperties',
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
] as const;

/** Keywords whose value is a map from a name (chosen by the tool's author) to a subschema. */
const SUBSCHEMA_MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'] as const;

/** Keywords whose value is a list of subschemas. */
const SUBSCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;

/**
 * Keywords that describe the document rather than the arguments. `$schema` constrains nothing, and
 * some providers' schema validators refuse a dialect declaration, so it goes wherever a subschema stands.
 */
const DROPPED_KEYWORDS = new Set(['$schema']);

type Schema = Record<string, unknown>;

/**
 * A copy of a tool's JSON Schema that every provider accepts as function parameters: `$schema` is
 * removed at every schema position; the root gets `type: "object"` (a union type such as
 * `["object", "null"]` becomes `"object"`, because tool arguments are always an object) and an empty
 * `properties` when it has none (OpenAI rejects an object schema without one). Everything else,
 * including `title`, `additionalProperties` and `required`, passes through unchanged — strict
 * mode is never switched on, so no provider needs them rewritten. Keys inside `properties` (and the
 * other name→schema maps) are names, never keywords: a property called `title` or `$schema` is kept.
 * The input is not modified. A tool's schema is converted every turn and does not change within a run,
 * so the copy is made once per schema object and shared: callers must not modify it.
 */
export function sanitizeToolSchema(schema: Readonly<Schema>): Readonly<Schema> {
  let root = sanitized.get(schema);
  if (root === undefined) {
    const copy = cleanSchema(schema);
    copy.type = 'object';
    if (!isPlainObject(copy.properties)) copy.properties = {};
    root = copy;
    sanitized.set(schema, root);
  }
  return root;
}

/** Each schema object's copy, for as long as the schema is referenced (about 9 µs a turn saved). */
const sanitized = new WeakMap<Readonly<Schema>, Readonly<Schema>>();

function cleanSchema(schema: Readonly<Schema>): Schema {
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    out[key] = cleanKeyword(key, value);
  }
  return out;
}

function cleanKeyword(key: string, value: unknown): unknown {
  if ((SUBSCHEMA_KEYWORDS as readonly string[]).includes(key)) {
    // `items` may still be a list of schemas in draft-07 documents.
    if (Array.isArray(value)) return value.map(cleanSubschema);
    return cleanSubschema(value);
  }
  if ((SUBSCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isPlainObject(value)) {
    const map: Schema = {};
    for (const [name, subschema] of Object.entries(value)) map[name] = cleanSubschema(subschema);
    return map;
  }
  if ((SUBSCHEMA_LIST_KEYWORDS as readonly string[]).includes(key) && Array.isArray(value)) {
    return value.map(cleanSubschema);
  }
  // Any other keyword's value is data (`enum`, `const`, `default`, `examples`, `required`, …): kept as is.
  return value;
}

/** A boolean schema (`true`/`false`) or anything unexpected is left alone; objects are cleaned. */
function cleanSubschema(value: unknown): unknown {
  return isPlainObject(value) ? cleanSchema(value) : value;
}

function isPlainObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
