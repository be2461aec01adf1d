import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { pendingApprovalsAfter } from '../http/formats/ag-ui-interrupts.js';
import type { RunEventOf } from '../protocol/run-events.js';
import type { RunListItem } from '../protocol/run-snapshot.js';
import type { OpenedRun } from '../runs/run-store.js';
import type { A2aDeps } from './a2a-deps.js';
import { A2aError, RPC_CODES, taskNotFound } from './a2a-error.js';
import type { A2aAnswer, A2aCall, A2aMethodTable, V03MethodTable } from './a2a-methods.js';
import {
  GetTaskParamsSchema,
  ListTasksParamsSchema,
  type ListTasksResult,
  SendMessageParamsSchema,
  TASK_STATES,
  TaskIdParamsSchema,
  type TaskState,
} from './a2a-schemas.js';
import { fieldIssues } from './field-issues.js';
import { decisionsOf, readParts, runRequestOf } from './message-input.js';
import { failedState, type TaskFrameContext } from './task-events.js';
import { waitUntilSettled } from './task-settled.js';
import { a2aInfoOf, contextIdOf, subjectOf, taskAt } from './task-view.js';
import { sendParamsFromV03, sendResultToV03, taskToV03 } from './v03-wire.js';

/** `params` read with `schema`, or `-32602` naming every bad field. */
export function paramsOf<Schema extends z.ZodType>(schema: Schema, params: unknown): z.output<Schema> {
  const parsed = schema.safeParse(params);
  if (parsed.success) return parsed.data;
  const { issues: details, summary } = fieldIssues(parsed.error);
  throw new A2aError(RPC_CODES.invalidParams, `Invalid params: ${summary}.`, {
    code: 'invalid_request',
    details,
    status: 200,
  });
}

/** `owner`'s run `id`, or `-32001` (an unknown run and another key's answer the same). */
export async function openTask(deps: Pick<A2aDeps, 'registry'>, id: string, owner: string): Promise<OpenedRun> {
  try {
    return await deps.registry.open(id, owner);
  } catch (error) {
    if ((error as { code?: string }).code === 'run_not_found') throw taskNotFound(id);
    throw error;
  }
}

function frameContext(run: OpenedRun): TaskFrameContext {
  return { taskId: run.record.id, contextId: contextIdOf(subjectOf(run.record)), log: run.log.entries };
}

/** The task of `run` as it stands now. */
function currentTask(run: OpenedRun, historyLength?: number) {
  return taskAt(subjectOf(run.record), run.log.entries, run.log.lastSeq, { historyLength });
}

/** Waits until the events after `after` leave `run` terminal or waiting on its caller (a blocking send). */
function settle(deps: A2aDeps, call: A2aCall, run: OpenedRun, after: number): Promise<void> {
  return waitUntilSettled(run, frameContext(run), after, deps.registry, { signal: call.signal, wakeMs: deps.wakeMs });
}

/**
 * `SendMessage` and `SendStreamingMessage`: a message without `taskId` starts a run (docs/a2a.md);
 * one with a `taskId` answers the task — decisions for the calls it waits on, or in chat mode the
 * next message. Blocking unless `returnImmediately`; a stream starts with the task, then follows it.
 */
function sendMessage(deps: A2aDeps, streaming: boolean) {
  return async (call: A2aCall): Promise<A2aAnswer> => {
    const { message, configuration } = paramsOf(SendMessageParamsSchema, call.params);
    const read = readParts(message.parts);
    let run: OpenedRun;
    let after: number;
    if (message.taskId === undefined) {
      const push = configuration?.taskPushNotificationConfig;
      if (push !== undefined && deps.push === undefined) {
        throw new A2aError(RPC_CODES.pushNotSupported, 'Push notifications are not served by this bridge.', {
          code: 'webhooks_not_configured',
          status: 200,
        });
      }
      // A receiver the bridge may not call is refused before the task starts, not after.
      if (push !== undefined) await deps.push?.check(push);
      const contextId = message.contextId ?? randomUUID();
      const request = runRequestOf(read, { contextId, messageId: message.messageId });
      const { record } = await deps.registry.create(request, call.owner);
      // Push notifications (src/a2a/push/) set the config of the task the send started.
      if (push !== undefined) await deps.push?.configure(record.id, call.owner, push, call.version);
      run = await openTask(deps, record.id, call.owner);
      after = -1;
    } else {
      run = await openTask(deps, message.taskId, call.owner);
      const contextId = contextIdOf(subjectOf(run.record));
      if (message.contextId !== undefined && message.contextId !== contextId) {
        throw new A2aError(
          RPC_CODES.invalidParams,
          `Task "${run.record.id}" belongs to context "${contextId}", not "${message.contextId}".`,
          {
            code: 'invalid_request',
            details: [{ path: 'message.contextId', message: "not the task's context" }],
            status: 200,
          },
        );
      }
      after = await answerTask(deps, call, run, read);
    }
    if (streaming) return { stream: { run, subject: subjectOf(run.record), from: after, endOnInterrupt: true } };
    if (configuration?.returnImmediately !== true) await settle(deps, call, run, after);
    return { result: { task: currentTask(run, configuration?.historyLength) } };
  };
}

/**
 * Answers a task with a message: decisions (a data part) for the calls it waits on, text for chat
 * mode's next message. Returns the seq after which the task's new updates begin. A task that has
 * ended takes no message (`-32004`, A2A v1.0 §3.1.1): a new task is a message without `taskId`.
 */
async function answerTask(
  deps: A2aDeps,
  call: A2aCall,
  run: OpenedRun,
  read: ReturnType<typeof readParts>,
): Promise<number> {
  const { record, log } = run;
  if (log.terminal) {
    throw new A2aError(
      RPC_CODES.unsupportedOperation,
      `Task "${record.id}" has ended (${log.summary.status}) and takes no more messages: send a message without taskId to start a new task.`,
      { code: 'run_ended', status: 200 },
    );
  }
  let after = log.lastSeq;
  if (read.data !== undefined) {
    const decisions = decisionsOf(read.data);
    for (const { toolCallId, request } of decisions) {
      const pending = pendingApprovalsAfter(log.entries, log.lastSeq).find((call) => call.tool_call_id === toolCallId);
      if (pending === undefined) {
        throw new A2aError(
          RPC_CODES.invalidParams,
          `Task "${record.id}" has no tool call "${toolCallId}" waiting for a decision; the calls that wait are listed in its input-required status.`,
          { code: 'approval_not_found', status: 200 },
        );
      }
      const resolved: RunEventOf<'tool.approval_resolved'> = await deps.registry.person.decide(
        record.id,
        call.owner,
        pending.approval_id,
        request,
      );
      after = Math.max(after, resolved.seq - 1);
    }
  }
  if (read.texts.length > 0) await deps.registry.person.message(record.id, call.owner, read.texts.join('\n'));
  return after;
}

/** `GetTask`. */
function getTask(deps: A2aDeps) {
  return async (call: A2aCall): Promise<A2aAnswer> => {
    const { id, historyLength } = paramsOf(GetTaskParamsSchema, call.params);
    return { result: currentTask(await openTask(deps, id, call.owner), historyLength) };
  };
}

/**
 * `CancelTask`: cancels the run and answers the task once it has ended. A task already canceled is
 * answered as it is (cancel is idempotent); one that ended otherwise is `-32002`.
 */
function cancelTask(deps: A2aDeps) {
  return async (call: A2aCall): Promise<A2aAnswer> => {
    const { id } = paramsOf(TaskIdParamsSchema, call.params);
    const run = await openTask(deps, id, call.owner);
    const terminal = run.log.terminal;
    if (terminal !== undefined && terminal.event !== 'run.cancelled') {
      throw new A2aError(
        RPC_CODES.taskNotCancelable,
        `Task "${id}" has ended (${run.log.summary.status}) and cannot be canceled.`,
        { code: 'task_not_cancelable', status: 200 },
      );
    }
    if (terminal === undefined) await deps.registry.cancel(id, call.owner);
    return { result: currentTask(run) };
  };
}

/**
 * `SubscribeToTask`: the task as it stands, then its updates to its end. With `Last-Event-ID` (the
 * `id` of the last frame a dropped stream delivered) the task as it stood then, and every update after
 * it — nothing lost, nothing twice; without it, a task that has ended is `-32004`, as the spec says.
 */
function subscribeToTask(deps: A2aDeps) {
  return async (call: A2aCall): Promise<A2aAnswer> => {
    const { id } = paramsOf(TaskIdParamsSchema, call.params);
    const run = await openTask(deps, id, call.owner);
    const { log } = run;
    let from = log.lastSeq;
    if (call.lastEventId !== undefined) {
      const seq = /^(-1|\d{1,9})$/.test(call.lastEventId) ? Number(call.lastEventId) : Number.NaN;
      if (!(seq <= log.lastSeq)) {
        throw new A2aError(
          RPC_CODES.invalidParams,
          `Last-Event-ID "${call.lastEventId.slice(0, 32)}" is not an event of this task: send the id of the last frame you received (-1 to replay all).`,
          { code: 'invalid_cursor', status: 200 },
        );
      }
      from = seq;
    } else if (log.terminal) {
      throw new A2aError(
        RPC_CODES.unsupportedOperation,
        `Task "${id}" has ended (${log.summary.status}): GetTask reads it; a Last-Event-ID resumes a dropped stream.`,
        { code: 'run_ended', status: 200 },
      );
    }
    return { stream: { run, subject: subjectOf(run.record), from, endOnInterrupt: false } };
  };
}

/** The state a run of the list stands in, by its status (a failed run's code tells `rejected` from `failed`). */
function listedState(item: RunListItem): TaskState {
  switch (item.status) {
    case 'queued':
      return 'TASK_STATE_SUBMITTED';
    case 'running':
      return 'TASK_STATE_WORKING';
    case 'requires_action':
    case 'awaiting_input':
      return 'TASK_STATE_INPUT_REQUIRED';
    case 'completed':
      return 'TASK_STATE_COMPLETED';
    case 'cancelled':
      return 'TASK_STATE_CANCELED';
    case 'failed':
      return failedState(item.error?.code ?? 'internal_error');
  }
}

/** Runs a key may hold are listed in pages of this many while `ListTasks` looks through them. */
const LIST_SCAN_PAGE = 100;

/**
 * `ListTasks`: the caller's tasks (every run of its key, started over A2A or not), newest first,
 * filtered by context, state and status time, in pages; `pageToken` is the id of the last task of
 * the page before, `totalSize` counts every task the filter matches.
 */
function listTasks(deps: A2aDeps) {
  return async (call: A2aCall): Promise<A2aAnswer> => {
    const query = paramsOf(ListTasksParamsSchema, call.params);
    const status = typeof query.status === 'number' ? TASK_STATES[query.status] : query.status;
    const after = query.statusTimestampAfter === undefined ? undefined : Date.parse(query.statusTimestampAfter) / 1000;
    const matched: RunListItem[] = [];
    let cursor: string | undefined;
    do {
      const page = await deps.registry.list(call.owner, {
        limit: LIST_SCAN_PAGE,
        ...(cursor === undefined ? {} : { after: cursor }),
      });
      for (const item of page.data) {
        if (query.contextId && (a2aInfoOf(item.metadata)?.contextId ?? item.run_id) !== query.contextId) continue;
        if (status !== undefined && status !== 'TASK_STATE_UNSPECIFIED' && listedState(item) !== status) continue;
        if (after !== undefined && item.updated_at <= after) continue;
        matched.push(item);
      }
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    let start = 0;
    if (query.pageToken) {
      start = matched.findIndex((item) => item.run_id === query.pageToken) + 1;
      if (start === 0) {
        throw new A2aError(
          RPC_CODES.invalidParams,
          `pageToken "${query.pageToken.slice(0, 64)}" names no task of this list: start again without one.`,
          { code: 'invalid_cursor', status: 200 },
        );
      }
    }
    const pageSize = query.pageSize || 50;
    const shown = matched.slice(start, start + pageSize);
    const tasks = [];
    for (const item of shown) {
      // A run forgotten since the list was read (its retention, a DELETE) is left out; other errors are the store's.
      const run = await deps.registry.open(item.run_id, call.owner).catch((error: unknown) => {
        if ((error as { code?: string }).code === 'run_not_found') return undefined;
        throw error;
      });
      if (run === undefined) continue;
      tasks.push(
        taskAt(subjectOf(run.record), run.log.entries, run.log.lastSeq, {
          historyLength: query.historyLength,
          artifacts: query.includeArtifacts === true,
        }),
      );
    }
    const more = start + pageSize < matched.length;
    return {
      result: {
        tasks,
        nextPageToken: more ? shown[shown.length - 1]!.run_id : '',
        pageSize,
        totalSize: matched.length,
      } satisfies ListTasksResult,
    };
  };
}

/** The v1.0 names of the methods of tasks and messages. */
export const TASK_METHODS = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
] as const;

/** The methods of tasks and messages, by their v1.0 names. */
export function taskMethods(deps: A2aDeps): Record<(typeof TASK_METHODS)[number], A2aMethodTable[string]> {
  return {
    SendMessage: sendMessage(deps, false),
    SendStreamingMessage: sendMessage(deps, true),
    GetTask: getTask(deps),
    ListTasks: listTasks(deps),
    CancelTask: cancelTask(deps),
    SubscribeToTask: subscribeToTask(deps),
  };
}

/** The same methods by their v0.3 names (v0.3 has no `ListTasks`). */
export const V03_TASK_METHODS: V03MethodTable = {
  'message/send': { v1: 'SendMessage', params: sendParamsFromV03, result: sendResultToV03 },
  'message/stream': { v1: 'SendStreamingMessage', params: sendParamsFromV03 },
  'tasks/get': { v1: 'GetTask', result: (task) => taskToV03(task as never) },
  'tasks/cancel': { v1: 'CancelTask', result: (task) => taskToV03(task as never) },
  'tasks/resubscribe': { v1: 'SubscribeToTask' },
};
