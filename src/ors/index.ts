/**
 * `runbridge/ors`: both sides of ORS (Open Reward Standard) — a client of any ORS server, and the
 * server framework that serves environments written in TypeScript with {@link defineEnvironment}.
 * See docs/ors.md.
 */
export { OrsError, RunbridgeError } from '../errors.js';
export { OrsClient, type OrsClientOptions, type OrsTaskRef } from './client/ors-client.js';
export type { OrsCallOutcome, OrsSession } from './client/ors-session.js';
export {
  defineEnvironment,
  defineTool,
  type EnvironmentDefinition,
  type SetupArgs,
  type TaskSource,
  type ToolContext,
  type ToolDefinition,
  ToolFailure,
  type ToolResult,
  taskList,
} from './environment.js';
export type { Block, ImageBlock, Split, TextBlock, ToolSpec } from './ors-schemas.js';
export { createOrsServer, type OrsServer, type OrsServerOptions } from './server/create-ors-server.js';
export type { AnyEnvironment } from './server/environment-registry.js';
