import type { A2aDeps } from '../../a2a/a2a-deps.js';
import { A2aError, RPC_CODES, RPC_REASONS, rpcCodeOf } from '../../a2a/a2a-error.js';
import { PUSH_METHODS, resolveMethod, V03_PUSH_METHODS } from '../../a2a/a2a-methods.js';
import { type A2aVersion, requestedVersion } from '../../a2a/a2a-version.js';
import { agentCardFor } from '../../a2a/agent-card.js';
import { idOf, parseRpcRequest, type RpcId, rpcError, rpcResult } from '../../a2a/json-rpc.js';
import { taskMethods, V03_TASK_METHODS } from '../../a2a/task-methods.js';
import { RunbridgeError } from '../../errors.js';
import type { AppDeps } from '../app-deps.js';
import { readJsonBody } from '../read-json-body.js';
import { responseSignal } from '../response-signal.js';
import type { A2A_ROUTES } from '../routes/a2a-routes.js';
import { serveTaskStream } from '../serve-task-stream.js';
import type { RouteContext, RouteHandlers } from './route-handler.js';

/** The method names a metric label may take; any other is `other`, so a caller cannot grow the label set. */
const KNOWN_METHODS = new Set<string>([
  ...Object.keys(taskMethods({} as A2aDeps)),
  ...Object.keys(V03_TASK_METHODS),
  ...PUSH_METHODS,
  ...V03_PUSH_METHODS,
]);

/**
 * The A2A routes (docs/a2a.md): the JSON-RPC endpoint, which answers every call — errors included —
 * as a JSON-RPC body in the shape of the version asked for, and the public agent card.
 */
export function a2aHandlers(deps: AppDeps): RouteHandlers<typeof A2A_ROUTES> {
  const a2a: A2aDeps = { registry: deps.registry, wakeMs: deps.config.keepaliveMs, push: deps.a2aPush };
  const methods = { ...taskMethods(a2a), ...deps.a2aPush?.methods };
  const v03 = { ...V03_TASK_METHODS, ...deps.a2aPush?.v03 };
  const metrics = deps.telemetry.metrics;

  return {
    'POST /v1/a2a': async (ctx) => {
      let version: A2aVersion = '0.3';
      let rpcId: RpcId = null;
      let method = 'other';
      const { signal, release } = responseSignal(ctx.res, deps.shutdownSignal);
      try {
        // The version first, so that every error after it has the version's shape; -32009 has v1.0's.
        let unsupported: unknown;
        try {
          version = requestedVersion(ctx.get('A2A-Version'), ctx.query['A2A-Version']);
        } catch (error) {
          version = '1.0';
          unsupported = error;
        }
        const body = await readJsonBody(ctx.req, deps.config.maxBodyBytes).catch((error: unknown) => {
          throw asEnvelopeError(error);
        });
        rpcId = idOf(body);
        if (unsupported !== undefined) throw unsupported;
        const request = parseRpcRequest(body);
        if (KNOWN_METHODS.has(request.method)) method = request.method;
        const call = resolveMethod(version, request.method, request.params ?? {}, methods, v03);
        const lastEventId = ctx.get('Last-Event-ID');
        const answer = await call.method({
          version,
          owner: ctx.state.owner,
          params: call.params,
          lastEventId: lastEventId === '' ? undefined : lastEventId,
          signal,
        });
        metrics.a2aCall(method, version, 'ok');
        if ('stream' in answer) {
          await serveTaskStream(ctx, deps, answer.stream, rpcId, version);
          return;
        }
        ctx.body = rpcResult(rpcId, call.result(answer.result));
      } catch (error) {
        answerError(ctx, deps, rpcId, version, method, error);
      } finally {
        release();
      }
    },

    'GET /.well-known/agent-card.json': async (ctx) => {
      // A v1.0 client asks with the header; a v0.3 one sends none and gets the v0.3 card (A2A v1.0 §3.6).
      let version: A2aVersion = '0.3';
      try {
        version = requestedVersion(ctx.get('A2A-Version'), undefined);
      } catch {
        // A version the bridge does not speak: the v0.3 card, which lists both interfaces.
      }
      const [envs, defaultEnv] = await Promise.all([
        deps.environments.list().catch(() => undefined),
        deps.environments.defaultEnv().catch(() => undefined),
      ]);
      ctx.set('Vary', 'A2A-Version');
      ctx.set('Cache-Control', 'public, max-age=60');
      ctx.body = agentCardFor(
        version,
        envs?.map((env) => ({ ...env, tools: [] })),
        {
          baseUrl: deps.config.publicUrl ?? `${ctx.protocol}://${ctx.host}`,
          keysRequired: deps.authenticator.required,
          pushNotifications: deps.a2aPush !== undefined,
          defaultEnv,
        },
      );
    },
  };
}

/** A body that could not be read as an error of the JSON-RPC envelope: `-32700` for bad JSON, `-32600` otherwise. */
function asEnvelopeError(error: unknown): unknown {
  if (!(error instanceof RunbridgeError)) return error;
  const rpcCode = error.code === 'invalid_json' ? RPC_CODES.parseError : RPC_CODES.invalidRequest;
  // A body over the cap keeps its 413: proxies and clients act on it.
  const status = error.code === 'body_too_large' ? 413 : 200;
  return new A2aError(rpcCode, error.message, { code: error.code, status, cause: error });
}

/**
 * Answers `error` as a JSON-RPC error in `version`'s shape. An error of ours keeps its code in `data`;
 * anything else is a bug, logged and answered `-32603` without its message.
 */
function answerError(
  ctx: RouteContext,
  deps: AppDeps,
  rpcId: RpcId,
  version: A2aVersion,
  method: string,
  error: unknown,
) {
  const known =
    error instanceof RunbridgeError
      ? error
      : new RunbridgeError('Internal error; the server log has the details.', { code: 'internal_error', cause: error });
  if (!(error instanceof RunbridgeError)) deps.telemetry.logger.error({ err: error, method }, 'a2a call failed');
  deps.telemetry.metrics.a2aCall(method, version, RPC_REASONS[rpcCodeOf(known)]);
  const answer = rpcError(rpcId, known, version);
  if (ctx.res.headersSent) {
    ctx.res.destroy();
    return;
  }
  ctx.status = answer.status;
  if (known.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(known.retryAfterSeconds));
  ctx.body = answer.body;
}
