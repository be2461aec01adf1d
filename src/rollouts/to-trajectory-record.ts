import type { ErrorCode } from '../protocol/error-codes.js';
import { reduceRewards } from '../protocol/reduce-rewards.js';
import type { RewardReduction, Sampling } from '../protocol/run-request.js';
import type { ApprovalRecord, EpisodeEnd, EpisodeRecord, EpisodeStep } from '../runs/episode-record.js';
import type { PlannedRollout } from './rollout-plan.js';
import { toOpenAiChatMessages, toOpenAiChatTools } from './to-openai-chat.js';
import {
  type ChatMessage,
  TRAJECTORY_SCHEMA_VERSION,
  type TrajectoryRecord,
  type TrajectoryStep,
} from './trajectory-schema.js';

/** What the trajectory needs besides the episode record itself. */
export interface TrajectoryContext {
  rolloutId: string;
  rollout: PlannedRollout;
  attempt: number;
  split: string;
  /** The task object as the ORS server lists it, or null. */
  spec: unknown;
  /**
   * The sampling the batch sends every episode; the record adds the rollout's own seed. (The log's
   * `run.context` holds it too, but an episode whose set-up failed never wrote one.)
   */
  sampling: Sampling;
  rewardReduction: RewardReduction;
  /** The per-rollout time limit, named in the error of an episode that hit it. */
  timeoutMs: number;
  /** The service batch that played it, and the policy it names (`POST /v1/rollouts`). */
  batch?: { id: string; policyVersion: string | null };
  /** The policy a local batch names (`runbridge rollout --policy-version`); a service batch's is its `batch`'s. */
  policyVersion?: string;
}

/**
 * An episode record — the fold of its events (`foldEpisode` in `src/runs/episode-fold.ts`) — → its trajectory line. Pure, so
 * a live episode and its replayed log give the same line. A completed episode keeps its stop reason; a
 * failed one is `stop_reason: "error"` (`"context_exceeded"` for `model_context_exceeded`) with the
 * run's error code and message; one cancelled by
 * the per-rollout time limit is `stop_reason: "timeout"`, code `rollout_timeout`. Any other cancel
 * is recorded as a failure with code `cancelled` (the batch itself writes no cancelled episode).
 */
export function toTrajectoryRecord(record: EpisodeRecord, context: TrajectoryContext): TrajectoryRecord {
  const { rollout } = context;
  const toolCalls = record.steps.flatMap((step) => step.toolCalls);
  const totalMs = Math.max(0, record.timing.endedAt - record.timing.startedAt);
  return {
    schema_version: TRAJECTORY_SCHEMA_VERSION,
    rollout_id: context.rolloutId,
    ...(context.batch === undefined ? {} : { batch_id: context.batch.id }),
    ...policyOf(context),
    group_id: rollout.groupId,
    sample_index: rollout.sample,
    attempt: context.attempt,
    task: { env: record.env, split: context.split, index: rollout.index, spec: context.spec },
    model: record.model,
    ...rendererOf(record),
    sampling: { ...context.sampling, seed: rollout.seed },
    tools: toOpenAiChatTools(record.tools),
    messages: markHumanTurns(toOpenAiChatMessages(record.messages), record),
    steps: record.steps.map((step) => toTrajectoryStep(step, record, context.rewardReduction)),
    rewards: record.rewards,
    reward: record.reward,
    reward_reduction: context.rewardReduction,
    finished: record.finished,
    ...endFields(record.end, context.timeoutMs),
    output: record.output,
    timing: {
      started_at: record.timing.startedAt / 1000,
      ended_at: record.timing.endedAt / 1000,
      total_ms: totalMs,
      model_ms: record.timing.modelMs,
      env_ms: record.timing.envMs,
      overhead_ms: Math.max(0, totalMs - record.timing.modelMs - record.timing.envMs),
    },
    metrics: {
      turns: record.turns,
      tool_calls: toolCalls.length,
      failed_tool_calls: toolCalls.filter((call) => call.error).length,
      input_tokens: record.usage.input_tokens,
      output_tokens: record.usage.output_tokens,
      total_tokens: record.usage.total_tokens,
    },
  };
}

function policyOf(context: TrajectoryContext): Pick<TrajectoryRecord, 'policy_version'> {
  const version = context.batch?.policyVersion ?? context.policyVersion;
  return version == null ? {} : { policy_version: version };
}

/**
 * Marks where a person took part (docs/trajectory.md): the user messages a person sent while the
 * episode ran (`origin: "human"`, `message_id`), and the result of each call that waited for a
 * decision (`approval`), so a trainer tells human turns from the environment's.
 */
function markHumanTurns(messages: ChatMessage[], record: EpisodeRecord): ChatMessage[] {
  const sent = new Map(record.userMessages.map((entry) => [entry.index, entry.messageId]));
  const approvals = new Map(
    record.steps.flatMap((step) => step.toolCalls.flatMap((call) => (call.approval ? [[call.id, call.approval]] : []))),
  );
  return messages.map((message, index) => {
    const messageId = sent.get(index);
    if (message.role === 'user' && messageId !== undefined)
      return { ...message, origin: 'human', message_id: messageId };
    const approval = message.role === 'tool' ? approvals.get(message.tool_call_id) : undefined;
    return approval && message.role === 'tool' ? { ...message, approval: approvalMark(approval) } : message;
  });
}

function approvalMark(approval: ApprovalRecord) {
  return {
    decision: approval.decision,
    by: approval.by,
    ...(approval.reason === undefined ? {} : { reason: approval.reason }),
    edited: approval.edited,
  };
}

function toTrajectoryStep(step: EpisodeStep, record: EpisodeRecord, reduction: RewardReduction): TrajectoryStep {
  const read = record.userMessages.filter((entry) => entry.turn === step.turn).map((entry) => entry.messageId);
  return {
    turn: step.turn,
    finish_reason: step.finishReason,
    raw_finish_reason: step.rawFinishReason ?? null,
    usage: step.usage,
    reward: reduceRewards(
      step.toolCalls.map((call) => call.reward),
      reduction,
    ),
    tool_calls: step.toolCalls.map((call) => ({
      tool_call_id: call.id,
      name: call.name,
      reward: call.reward,
      finished: call.finished,
      error: call.error,
      error_message: call.error ? (call.errorMessage ?? 'The tool failed.') : null,
      metadata: call.metadata,
      duration_ms: call.durationMs,
      ...(call.approval
        ? {
            approval: {
              approval_id: call.approval.approvalId,
              ...approvalMark(call.approval),
              arguments: call.approval.arguments,
            },
          }
        : {}),
    })),
    ...(read.length > 0 ? { user_message_ids: read } : {}),
    prompt_token_ids: step.tokenData?.promptTokenIds ?? null,
    token_ids: step.tokenData?.tokenIds ?? null,
    logprobs: step.tokenData?.logprobs ?? null,
    logprobs_raw: step.tokenData?.raw ?? null,
    ...(step.tokenData?.newSequence ? { new_sequence: { reason: step.tokenData.newSequence.reason } } : {}),
    model_ms: step.modelMs,
  };
}

/** What rendered the episode's ids, from its first turn that says (every turn of an episode says the same). */
function rendererOf(record: EpisodeRecord): Pick<TrajectoryRecord, 'renderer'> {
  const renderer = record.steps.find((step) => step.tokenData?.renderer)?.tokenData?.renderer;
  if (renderer === undefined) return {};
  return {
    renderer: {
      model: renderer.model,
      template_fingerprint: renderer.templateFingerprint,
      chat_template_kwargs: renderer.chatTemplateKwargs,
      reasoning_parser: renderer.reasoningParser,
      tool_parser: renderer.toolParser,
    },
  };
}

function endFields(end: EpisodeEnd, timeoutMs: number): Pick<TrajectoryRecord, 'status' | 'stop_reason' | 'error'> {
  switch (end.status) {
    case 'completed':
      return { status: 'completed', stop_reason: end.stopReason, error: null };
    case 'failed':
      return {
        status: 'failed',
        // A context too short for the next turn ends an RL episode as a limit does, and says which.
        stop_reason: end.code === ('model_context_exceeded' satisfies ErrorCode) ? 'context_exceeded' : 'error',
        error: { code: end.code, message: end.message },
      };
    case 'cancelled':
      if (end.reason === 'timeout') {
        return {
          status: 'failed',
          stop_reason: 'timeout',
          error: {
            code: 'rollout_timeout' satisfies ErrorCode,
            message: `The episode did not end within its time limit of ${timeoutMs / 1000} s, so it was cancelled; raise the limit (--timeout-seconds) if episodes need longer.`,
          },
        };
      }
      return {
        status: 'failed',
        stop_reason: 'error',
        error: { code: 'cancelled' satisfies ErrorCode, message: `The episode was cancelled (${end.reason}).` },
      };
  }
}
