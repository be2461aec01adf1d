import type { z } from 'zod';

/**
 * One setting of the bridge: the environment variable it is read from, how its text is read and
 * checked (the schema holds the default and the bounds), and how docs/configuration.md describes it.
 * The table of these (`settings.ts`) is the one home of every setting: the configuration's type, its
 * loader and that page all come from it.
 */
export interface Setting<Parsed = unknown, Value = Parsed, Inputs = never> {
  /** The environment variable. */
  variable: string;
  /** Reads the variable's text (`undefined` when unset) into the value; its messages say what it accepts. */
  schema: z.ZodType<Parsed>;
  /** What the variable accepts, as the page says it (markdown). */
  accepts: string;
  /** The default, as the page says it (markdown). */
  default: string;
  /** What the setting does: the page's sentences (markdown). */
  description: string;
  /** A key or secret: a message about a value it cannot use says how long it is, never what it is. */
  secret?: boolean;
  /**
   * A default that depends on other settings: the value from what the variable said (`undefined`
   * when unset) and the other settings it names in `inputs` (their parsed values).
   */
  derive?(own: Parsed, inputs: Inputs): Value;
}

/** Settings, and groups of settings that the configuration holds as one object (`webhooks`, `openai`, …). */
export interface SettingsTree {
  readonly [key: string]: Setting<unknown, unknown, unknown> | SettingsTree;
}

/** One entry of the table; a function only so that TypeScript infers the entry's types. */
export function setting<Parsed, Value = Parsed, Inputs = never>(
  entry: Setting<Parsed, Value, Inputs>,
): Setting<Parsed, Value, Inputs> {
  return entry;
}

/** The configuration a table of settings reads to: each setting's value, in the table's shape. */
export type SettingValues<T> =
  T extends Setting<unknown, infer Value, never> ? Value : { [K in keyof T]: SettingValues<T[K]> };

/** What the variables say before derived defaults are worked out (a derived setting holds its own variable's value). */
export type ParsedValues<T> =
  T extends Setting<infer Parsed, unknown, never> ? Parsed : { [K in keyof T]: ParsedValues<T[K]> };

/** Everything the derived defaults of a table read, as one type. */
export type DeriveInputs<T> = Intersection<InputsOf<T>>;

type InputsOf<T> =
  T extends Setting<unknown, unknown, infer Inputs> ? Inputs : { [K in keyof T]: InputsOf<T[K]> }[keyof T];

type Intersection<Union> = (Union extends unknown ? (value: Union) => void : never) extends (value: infer All) => void
  ? All
  : never;

function isSetting(
  node: Setting<unknown, unknown, unknown> | SettingsTree,
): node is Setting<unknown, unknown, unknown> {
  return typeof node.variable === 'string';
}

/** Every setting of `tree`, in the table's order. */
export function settingsOf(tree: SettingsTree): Setting<unknown, unknown, unknown>[] {
  return Object.values(tree).flatMap((node) => (isSetting(node) ? [node] : settingsOf(node)));
}

/** A tree of `tree`'s shape holding `read(setting)` for each setting. */
export function mapSettings(
  tree: SettingsTree,
  read: (entry: Setting<unknown, unknown, unknown>) => unknown,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(tree).map(([key, node]) => [key, isSetting(node) ? read(node) : mapSettings(node, read)]),
  );
}
