import type { LoggedEvent } from '../runs/event-log.js';
import type { RunRecord } from '../runs/run-record.js';
import type { Artifact, Message, Part, Task, TaskStatus } from './a2a-schemas.js';
import { A2A_METADATA_KEY, A2aRunMetadataSchema } from './message-input.js';
import { ANSWER_ARTIFACT, contentParts, type TaskFrameContext, taskEventsOf } from './task-events.js';

/** The A2A side of a task started over A2A: its context, and the id of the message that started it. */
export interface A2aTaskInfo {
  contextId: string;
  messageId: string;
}

/** A run as a task: its record and, when it was started over A2A, its A2A side. */
export interface TaskSubject {
  record: Pick<RunRecord, 'id' | 'env' | 'model' | 'request' | 'createdAt'>;
  info: A2aTaskInfo | undefined;
}

/**
 * Run `record` as a task. A task started over A2A keeps its context in its run's metadata (under
 * `a2a`), so every instance reading the run reads the same task, with nothing kept beside it.
 */
export function subjectOf(record: TaskSubject['record']): TaskSubject {
  return { record, info: a2aInfoOf(record.request.metadata) };
}

/** The A2A side a run's `metadata` keeps, when it was started over A2A. */
export function a2aInfoOf(metadata: Record<string, unknown> | undefined): A2aTaskInfo | undefined {
  const parsed = A2aRunMetadataSchema.safeParse(metadata?.[A2A_METADATA_KEY]);
  return parsed.success ? { contextId: parsed.data.context_id, messageId: parsed.data.message_id } : undefined;
}

/** The context of a task: the caller's, or, for a run started through `/v1/runs`, its own id. */
export function contextIdOf(subject: TaskSubject): string {
  return subject.info?.contextId ?? subject.record.id;
}

/** What of a task to show: the last `historyLength` messages (all when undefined, none at 0), the artifacts or not. */
export interface TaskViewOptions {
  historyLength?: number | undefined;
  artifacts?: boolean;
}

/** The message that started the task: its text as the run's `input`, or the run request it carried. */
function firstMessage(subject: TaskSubject, contextId: string): Message {
  const { record, info } = subject;
  const { input } = record.request;
  const parts: Part[] =
    typeof input === 'string' && input !== ''
      ? [{ text: input }]
      : [{ data: record.request, mediaType: 'application/json' }];
  return {
    messageId: info?.messageId ?? `${record.id}-input`,
    contextId,
    taskId: record.id,
    role: 'ROLE_USER',
    parts,
  };
}

/**
 * The task as it stood after the event at `upTo` (-1: before any, a queued run): a fold of the same
 * stream events the task's stream sends (`task-events.ts`), so the task a stream starts with and the
 * updates after it add up to what `GetTask` answers. Its status is the last status update's; its
 * artifact the answer as its chunks built it; its history the messages that started and answered it —
 * the caller's, and in chat mode the agent's answer at each turn it waited for the next.
 */
export function taskAt(
  subject: TaskSubject,
  log: readonly LoggedEvent[],
  upTo: number,
  options: TaskViewOptions = {},
): Task {
  const contextId = contextIdOf(subject);
  const ctx: TaskFrameContext = { taskId: subject.record.id, contextId, log };
  let status: TaskStatus = {
    state: 'TASK_STATE_SUBMITTED',
    timestamp: new Date(subject.record.createdAt).toISOString(),
  };
  let answer: string | undefined;
  let endMetadata: Record<string, unknown> = {};
  const history: Message[] = [firstMessage(subject, contextId)];
  for (let seq = 0; seq <= upTo && seq < log.length; seq++) {
    const entry = log[seq]!;
    const { event } = entry;
    if (event.event === 'message.received') {
      history.push({
        messageId: event.message_id,
        contextId,
        taskId: subject.record.id,
        role: 'ROLE_USER',
        parts: contentParts(event.content),
      });
    }
    if (event.event === 'run.awaiting_input' && answer) {
      history.push({
        messageId: `${subject.record.id}-answer-${event.turn}`,
        contextId,
        taskId: subject.record.id,
        role: 'ROLE_AGENT',
        parts: [{ text: answer }],
      });
    }
    for (const update of taskEventsOf(entry, ctx)) {
      if ('statusUpdate' in update) {
        status = update.statusUpdate.status;
        const { seq: _seq, ...rest } = update.statusUpdate.metadata ?? {};
        endMetadata = rest;
      } else if ('artifactUpdate' in update) {
        const { artifact, append } = update.artifactUpdate;
        const text = artifact.parts.map((part) => ('text' in part ? part.text : '')).join('');
        answer = append ? `${answer ?? ''}${text}` : text;
      }
    }
  }
  const { historyLength, artifacts = true } = options;
  const shown = historyLength === undefined ? history : historyLength === 0 ? [] : history.slice(-historyLength);
  const artifact: Artifact | undefined =
    answer === undefined || answer === ''
      ? undefined
      : { artifactId: ANSWER_ARTIFACT, name: ANSWER_ARTIFACT, parts: [{ text: answer }] };
  return {
    id: subject.record.id,
    contextId,
    status,
    ...(artifacts && artifact ? { artifacts: [artifact] } : {}),
    ...(shown.length > 0 ? { history: shown } : {}),
    metadata: {
      env: subject.record.env,
      model: subject.record.model,
      last_seq: Math.min(upTo, log.length - 1),
      ...endMetadata,
    },
  };
}

/** The time of the task's current status, epoch seconds, for `ListTasks`' `statusTimestampAfter`. */
export function statusSeconds(task: Task): number {
  return task.status.timestamp === undefined ? 0 : Date.parse(task.status.timestamp) / 1000;
}
