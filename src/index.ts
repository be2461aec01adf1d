/**
 * `runbridge`: the server as a library — start it in-process, generate rollouts, plug in models —
 * and the run event and request schemas. The HTTP client is `runbridge/client`; the ORS client and
 * the framework for writing environments are `runbridge/ors`. See docs/api.md.
 */
export { type Config, ConfigError, loadConfig } from './config/index.js';
export { configuredProviders } from './configured-providers.js';
export { connectOrs, type OrsConnection } from './connect-ors.js';
export { RunbridgeError } from './errors.js';
export { type Runbridge, type StartOptions, startRunbridge } from './main.js';
export type { ContentPart, Message, ReasoningBlock, ToolCall, ToolDefinition } from './models/conversation.js';
export type {
  Model,
  ModelFinishReason,
  ModelPart,
  ModelProvider,
  ModelRequest,
  ModelUsage,
  PromptRenderer,
  TokenData,
} from './models/model.js';
export { ModelRegistry } from './models/model-registry.js';
export type { ErrorCode } from './protocol/error-codes.js';
export {
  type CancelReason,
  type FinishReason,
  isTerminalEvent,
  type RunEvent,
  type RunEventOf,
  RunEventSchema,
  type RunEventType,
  type StopReason,
  type TaskRef,
  TaskRefSchema,
  type TerminalEvent,
  type ToolReward,
  type Usage,
  UsageSchema,
} from './protocol/run-events.js';
export { type InputMessage, type RunRequest, RunRequestSchema, type Sampling } from './protocol/run-request.js';
export {
  type RunCreated,
  RunCreatedSchema,
  type RunSnapshot,
  RunSnapshotSchema,
  type RunStatus,
} from './protocol/run-snapshot.js';
export {
  type GenerateRolloutsOptions,
  generateRollouts,
  type RolloutProgress,
} from './rollouts/generate-rollouts.js';
export type { RolloutManifest } from './rollouts/rollout-manifest.js';
export { type TrajectoryRecord, TrajectoryRecordSchema } from './rollouts/trajectory-schema.js';
export type { RolloutResult } from './rollouts/with-rollout-file.js';
export type {
  RolloutWorkerRuntime,
  RolloutWorkerSetup,
  RolloutWorkers,
} from './rollouts/workers/rollout-worker-setup.js';
