/**
 * `runbridge/client`: a typed client of the runbridge HTTP API for Node 20+ and browsers — fetch and
 * eventsource-parser, no server code. See docs/client.md.
 */

export type { ErrorCode } from '../protocol/error-codes.js';
export type {
  ApprovalDecider,
  ApprovalDecision,
  CancelReason,
  FinishReason,
  RunEvent,
  RunEventOf,
  RunEventType,
  StopReason,
  TaskRef,
  TerminalEvent,
  ToolReward,
  Usage,
} from '../protocol/run-events.js';
export type {
  PendingApproval,
  PendingApprovalSummary,
  RunCreated,
  RunListItem,
  RunSnapshot,
  RunStatus,
} from '../protocol/run-snapshot.js';
export type { EnvironmentsApi, ModelsApi } from './catalog-api.js';
export {
  ApiError,
  type ApiErrorCode,
  type ApiErrorInit,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  InvalidRequestError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  RunbridgeClientError,
  ServerError,
  StreamInterruptedError,
  UnavailableError,
  UnexpectedResponseError,
} from './client-errors.js';
export {
  type AnyRunEvent,
  type ApprovalResolved,
  type CancelAnswer,
  type EnvironmentList,
  isKnownRunEvent,
  isTerminalRunEvent,
  type MessageAccepted,
  type MessageContent,
  type ModelList,
  type RunListQuery,
  type RunPage,
  type RunRequest,
  type StreamToken,
  type UnknownRunEvent,
} from './client-types.js';
export { type ClientOptions, createClient, type RunbridgeClient } from './create-client.js';
export type { ReconnectOptions, RunEventsOptions } from './run-event-stream.js';
export type { ApproveOptions, CreateRunOptions, DenyOptions, RequestOptions, RunsApi } from './runs-api.js';
