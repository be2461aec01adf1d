import type { Message, Part, StreamResponse, Task, TaskState, TaskStatus } from './a2a-schemas.js';

/**
 * A2A v0.3 on the wire, translated to and from the v1.0 shapes the methods use (v0.3 `types.ts`):
 * objects tagged with `kind`, kebab-case states, lower-case roles, `{kind:"file", file}` parts, and
 * `blocking` where v1.0 has `returnImmediately`. Only what a caller sends is read here; what the
 * server writes is made by {@link taskToV03} and {@link streamResponseToV03}.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** A v0.3 part as a v1.0 one: `{kind:"text"}` → `{text}`, `{kind:"data"}` → `{data}`, files → `raw`/`url`. */
function partFromV03(part: unknown): unknown {
  if (!isObject(part)) return part;
  const { kind, file, metadata } = part;
  const meta = metadata === undefined ? {} : { metadata };
  if (kind === 'text') return { text: part.text, ...meta };
  if (kind === 'data') return { data: part.data, ...meta };
  if (kind === 'file' && isObject(file)) {
    return {
      ...(file.bytes === undefined ? { url: file.uri } : { raw: file.bytes }),
      ...(file.name === undefined ? {} : { filename: file.name }),
      ...(file.mimeType === undefined ? {} : { mediaType: file.mimeType }),
      ...meta,
    };
  }
  // A part of no kind we know: left as it came, for the message reader to refuse by name.
  return { unknownKind: String(kind).slice(0, 64) };
}

const ROLES_FROM_V03: Readonly<Record<string, string>> = { user: 'ROLE_USER', agent: 'ROLE_AGENT' };

/** A v0.3 message as a v1.0 one. */
export function messageFromV03(message: unknown): unknown {
  if (!isObject(message)) return message;
  const { kind: _kind, role, parts, ...rest } = message;
  return {
    ...rest,
    ...(typeof role === 'string' ? { role: ROLES_FROM_V03[role] ?? role } : {}),
    ...(Array.isArray(parts) ? { parts: parts.map(partFromV03) } : { parts }),
  };
}

/** `message/send` and `message/stream` params as `SendMessage` ones. */
export function sendParamsFromV03(params: Json): Json {
  const { message, configuration, ...rest } = params;
  const config = isObject(configuration) ? configuration : undefined;
  return {
    ...rest,
    message: messageFromV03(message),
    ...(config === undefined
      ? {}
      : {
          configuration: {
            ...(config.acceptedOutputModes === undefined ? {} : { acceptedOutputModes: config.acceptedOutputModes }),
            ...(config.historyLength === undefined ? {} : { historyLength: config.historyLength }),
            // v0.3 leaves the default open; runbridge blocks unless told not to, as v1.0 does.
            ...(config.blocking === false ? { returnImmediately: true } : {}),
            ...(config.pushNotificationConfig === undefined
              ? {}
              : { taskPushNotificationConfig: pushConfigFromV03(config.pushNotificationConfig) }),
          },
        }),
  };
}

/** A v0.3 `PushNotificationConfig` as v1.0's flat one (`authentication.schemes[0]` is the scheme). */
export function pushConfigFromV03(config: unknown): unknown {
  if (!isObject(config)) return config;
  const { authentication, ...rest } = config;
  if (!isObject(authentication)) return rest;
  const schemes = Array.isArray(authentication.schemes) ? authentication.schemes : [];
  return {
    ...rest,
    authentication: {
      scheme: schemes[0],
      ...(authentication.credentials === undefined ? {} : { credentials: authentication.credentials }),
    },
  };
}

/** A v1.0 state as v0.3 writes it: `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export function stateToV03(state: TaskState): string {
  return state === 'TASK_STATE_UNSPECIFIED'
    ? 'unknown'
    : state.slice('TASK_STATE_'.length).toLowerCase().replaceAll('_', '-');
}

function partToV03(part: Part): Json {
  return 'text' in part ? { kind: 'text', text: part.text } : { kind: 'data', data: part.data };
}

function messageToV03(message: Message): Json {
  return {
    kind: 'message',
    ...message,
    role: message.role === 'ROLE_USER' ? 'user' : 'agent',
    parts: message.parts.map(partToV03),
  };
}

function statusToV03(status: TaskStatus): Json {
  return {
    ...status,
    state: stateToV03(status.state),
    ...(status.message ? { message: messageToV03(status.message) } : {}),
  };
}

/** A task as v0.3 writes it. */
export function taskToV03(task: Task): Json {
  return {
    kind: 'task',
    ...task,
    status: statusToV03(task.status),
    ...(task.history ? { history: task.history.map(messageToV03) } : {}),
    ...(task.artifacts
      ? { artifacts: task.artifacts.map((artifact) => ({ ...artifact, parts: artifact.parts.map(partToV03) })) }
      : {}),
  };
}

/** A stream event as v0.3 writes it; `final` marks the last status update of the stream (v0.3 §7.2). */
export function streamResponseToV03(response: StreamResponse, final: boolean): Json {
  if ('task' in response) return taskToV03(response.task);
  if ('statusUpdate' in response) {
    const update = response.statusUpdate;
    return { kind: 'status-update', ...update, status: statusToV03(update.status), final };
  }
  const update = response.artifactUpdate;
  return {
    kind: 'artifact-update',
    ...update,
    artifact: { ...update.artifact, parts: update.artifact.parts.map(partToV03) },
  };
}

/** A `SendMessage` result as `message/send` answers it: the bare task. */
export function sendResultToV03(result: unknown): unknown {
  return isObject(result) && isObject(result.task) ? taskToV03(result.task as Task) : result;
}
