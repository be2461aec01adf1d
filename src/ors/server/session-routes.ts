import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import Router from 'koa-router';
import { formatSseFrame } from '../../sse/format-sse-frame.js';
import { SSE_HEADERS } from '../../sse/sse-headers.js';
import { CallRequestSchema, CreateRequestSchema, type ToolSpec } from '../ors-schemas.js';
import { type CallStreamOptions, streamCallError, streamToolTask } from './call-stream.js';
import { type EnvironmentRegistry, toolSpecs } from './environment-registry.js';
import { executeToolCall } from './execute-tool-call.js';
import { parseBodyText, readBodyText } from './parse-request-body.js';
import { envParam, requireSessionId } from './request-parts.js';
import { sameJson } from './same-json.js';
import type { ReadySession, SessionStore } from './session-store.js';
import { taskForCreate } from './task-lookup.js';
import { type ToolTask, type ToolTaskStore, UNKNOWN_TASK_MESSAGE } from './tool-task-store.js';
import { toWireBlocks } from './wire-output.js';

export interface SessionRouteDeps {
  registry: EnvironmentRegistry;
  sessions: SessionStore;
  tasks: ToolTaskStore;
  stream: CallStreamOptions;
  logError(message: string, error: unknown): void;
}

/**
 * The session lifecycle (`/create_session`, `/create`, `/ping`, `/delete`, `/delete_session`) and the
 * episode endpoints (`/{env}/prompt`, `/{env}/task_tools`, `/{env}/call`). Every one but
 * `/create_session` needs `X-Session-ID` and checks it first (400). The `{env}` segment must name a
 * served environment (404) but, as in the reference server, is not matched against the session's own.
 */
export function sessionRoutes(deps: SessionRouteDeps): Router {
  const { registry, sessions, tasks } = deps;
  const router = new Router();

  // SSE, not JSON, because that is what the reference server answers; any body (the Python client sends `{}`) is ignored.
  router.post('/create_session', (ctx) => {
    ctx.set(SSE_HEADERS);
    ctx.body = formatSseFrame({ event: 'task_id', data: randomUUID() }) + formatSseFrame({ event: 'end', data: '' });
  });

  router.post('/create', async (ctx) => {
    const sid = requireSessionId(ctx);
    const text = await readBodyText(ctx.req);
    const body = parseBodyText(text, CreateRequestSchema);
    sessions.assertCreatable(sid);
    const served = body.env_name === undefined ? registry.first() : registry.get(body.env_name);
    sessions.create(sid, served, taskForCreate(served, body), body.secrets, Buffer.byteLength(text));
    ctx.body = { sid };
  });

  // Does not wait for setup: a ping only says "still here", and must not block behind a slow setup.
  router.post('/ping', (ctx) => {
    sessions.assertExists(requireSessionId(ctx));
    ctx.body = { status: 'ok' };
  });

  router.post('/delete', async (ctx) => {
    const sid = requireSessionId(ctx);
    await sessions.delete(sid);
    ctx.body = { sid };
  });

  // The reference keeps nothing per id before `/create`, so there is nothing to free; kept for clients that call it.
  router.post('/delete_session', (ctx) => {
    ctx.body = { sid: requireSessionId(ctx) };
  });

  router.get('/:env/prompt', async (ctx) => {
    const session = await readySession(ctx);
    const { definition } = session.environment;
    ctx.body = toWireBlocks(await definition.prompt(session.state), `The prompt of environment "${definition.name}"`);
  });

  router.get('/:env/task_tools', async (ctx) => {
    const session = await readySession(ctx);
    const { definition, sharedToolSpecs } = session.environment;
    const taskSpecific: ToolSpec[] = toolSpecs(definition.taskTools?.(session.state) ?? [], definition.name);
    ctx.body = { tools: [...sharedToolSpecs, ...taskSpecific] };
  });

  router.post('/:env/call', async (ctx) => {
    const sid = requireSessionId(ctx);
    registry.get(envParam(ctx.params));
    // Read the body before waiting for setup, so a client that leaves meanwhile has still sent its call;
    // it is judged after the session, in the reference's order (404/410 before 422).
    const text = await readBodyText(ctx.req);
    const session = await sessions.ready(sid);
    sessions.charge(sid, Buffer.byteLength(text));
    const call = parseBodyText(text, CallRequestSchema);
    // From here on the answer is an SSE stream that we write ourselves; Koa must not touch the response.
    ctx.respond = false;
    if (call.task_id === undefined) {
      const task = tasks.start(session.id, call.name, call.input, () =>
        executeToolCall(session, call.name, call.input, deps.logError),
      );
      await streamToolTask(ctx.res, task, tasks, deps.stream);
      return;
    }
    const task = tasks.find(call.task_id, session.id);
    if (task === undefined) {
      streamCallError(ctx.res, UNKNOWN_TASK_MESSAGE);
      return;
    }
    if (!sameCall(task, call.name, call.input)) {
      streamCallError(
        ctx.res,
        `task_id ${task.id} belongs to another call (tool "${task.name}" with its own input); reconnect with that call's name and input, or leave task_id out to start a new call.`,
      );
      return;
    }
    await streamToolTask(ctx.res, task, tasks, deps.stream);
  });

  /** Checks header (400), environment (404), then waits for the session's setup (404 / 410 / 500). */
  async function readySession(ctx: Pick<Context, 'get'> & { params: Record<string, string> }): Promise<ReadySession> {
    const sid = requireSessionId(ctx);
    registry.get(envParam(ctx.params));
    return sessions.ready(sid);
  }

  return router;
}

/**
 * A reconnect must repeat the call it resumes. The reference ignores the name and input of a
 * reconnect; we refuse a mismatch, because a client that reuses a task id for a different call
 * would otherwise be handed another call's result as its own.
 */
function sameCall(task: ToolTask, name: string, input: Record<string, unknown>): boolean {
  return task.name === name && sameJson(task.input, input);
}
