import type { OpenedRun } from '../runs/run-store.js';
import type { StopSignal } from '../sse/stop-signal.js';
import { A2aError, RPC_CODES } from './a2a-error.js';
import type { A2aVersion } from './a2a-version.js';
import type { TaskSubject } from './task-view.js';

/**
 * The A2A methods by name, and the one dispatcher that looks a call up in them. Methods are written
 * once, against the v1.0 shapes; a v0.3 method name stands for one of them, with a translation of its
 * params in and of its result out (`V03_METHODS`). The push notification methods live in their own
 * module (`src/a2a/push/`), which adds its entries to both tables; until it does, they answer `-32003`.
 */

/** One JSON-RPC call, as a method sees it: who asks, in which version, with which params (v1.0 shapes). */
export interface A2aCall {
  version: A2aVersion;
  owner: string;
  params: Record<string, unknown>;
  /** The request's `Last-Event-ID`, where a stream resumes (docs/a2a.md, "Resuming a stream"). */
  lastEventId: string | undefined;
  /** The bridge's base URL as the caller reaches it (`RUNBRIDGE_PUBLIC_URL`, else the request's origin). */
  baseUrl: string;
  /** Aborted when the caller goes away: a blocking send stops waiting (the run goes on). */
  signal: StopSignal;
}

/**
 * A task's stream to serve: first the task as it stood after the event at `from`, then every update of
 * the events after it. A stream of a send (`endOnInterrupt`) ends once the task waits for the caller
 * (`input-required`), as the A2A SDKs end theirs; a subscriber's follows the task to its end.
 */
export interface TaskStream {
  run: OpenedRun;
  subject: TaskSubject;
  from: number;
  endOnInterrupt: boolean;
}

/** What a method answers: a result (v1.0 shapes), or a stream to serve. */
export type A2aAnswer = { result: unknown } | { stream: TaskStream };

export type A2aMethod = (call: A2aCall) => Promise<A2aAnswer>;

/** Methods by their v1.0 name. */
export type A2aMethodTable = Record<string, A2aMethod>;

/** A v0.3 method: the v1.0 method it stands for, and how its params and result translate. */
export interface V03Method {
  v1: string;
  params?: (params: Record<string, unknown>) => Record<string, unknown>;
  result?: (result: unknown) => unknown;
}

/** v0.3 methods by their v0.3 name. */
export type V03MethodTable = Record<string, V03Method>;

/** The push notification config methods (v1.0 names), answered `-32003` while no module serves them. */
export const PUSH_METHODS = [
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
] as const;

/** The v0.3 names of the push notification config methods. */
export const V03_PUSH_METHODS = [
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
] as const;

/** A method call resolved: the v1.0 method, its params in v1.0 shapes, and how to give its result back. */
export interface ResolvedCall {
  method: A2aMethod;
  params: Record<string, unknown>;
  result: (result: unknown) => unknown;
}

/**
 * Looks `name` up among the methods of `version`: `-32601` for a name the version does not have
 * (v1.0 and v0.3 names never mix: a v0.3 client sends no header, so a v1.0 name without one is a
 * mistake to say, not to guess), `-32003` for a push method no module serves.
 */
export function resolveMethod(
  version: A2aVersion,
  name: string,
  params: Record<string, unknown>,
  methods: A2aMethodTable,
  v03: V03MethodTable,
): ResolvedCall {
  const entry: V03Method | undefined =
    version === '1.0' ? { v1: name } : Object.hasOwn(v03, name) ? v03[name] : undefined;
  const method = entry !== undefined && Object.hasOwn(methods, entry.v1) ? methods[entry.v1] : undefined;
  if (entry !== undefined && method !== undefined) {
    return { method, params: entry.params ? entry.params(params) : params, result: entry.result ?? ((value) => value) };
  }
  const push = version === '1.0' ? PUSH_METHODS : V03_PUSH_METHODS;
  if ((push as readonly string[]).includes(name)) {
    throw new A2aError(RPC_CODES.pushNotSupported, 'Push notifications are not served by this bridge.', {
      code: 'webhooks_not_configured',
      status: 200,
    });
  }
  const known = version === '1.0' ? Object.keys(methods) : Object.keys(v03);
  throw new A2aError(
    RPC_CODES.methodNotFound,
    `Method not found: "${name.slice(0, 128)}" is not an A2A ${version} method here. ` +
      `Methods: ${known.join(', ')}${version === '0.3' ? ' (send "A2A-Version: 1.0" for the v1.0 names)' : ''}.`,
    { code: 'jsonrpc_unknown_method', status: 200 },
  );
}
