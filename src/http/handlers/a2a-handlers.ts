import type { A2aDeps } from '../../a2a/a2a-deps.js';
import { A2aError, RPC_CODES, RPC_REASONS, rpcCodeOf } from '../../a2a/a2a-error.js';
import {
  type A2aCall,
  type A2aMethodTable,
  PUSH_METHODS,
  resolveMethod,
  V03_PUSH_METHODS,
} from '../../a2a/a2a-methods.js';
import { type A2aVersion, requestedVersion } from '../../a2a/a2a-version.js';
import { agentCardFor } from '../../a2a/agent-card.js';
import { idOf, parseRpcRequest, type RpcId, rpcError, rpcResult } from '../../a2a/json-rpc.js';
import { TASK_METHODS, taskMethods, V03_TASK_METHODS } from '../../a2a/task-methods.js';
import { RunbridgeError } from '../../errors.js';
import { bridgeSecretRedactor } from '../../runs/run-data-redactor.js';
import type { AppDeps } from '../app-deps.js';
import { readJsonBody } from '../read-json-body.js';
import { responseSignal } from '../response-signal.js';
import type { A2A_ROUTES } from '../routes/a2a-routes.js';
import { serveTaskStream } from '../serve-task-stream.js';
import type { RouteContext, RouteHandlers } from './route-handler.js';

/** The card's method, in both versions: the extended card, for a caller that authenticated. */
const CARD_METHOD = 'GetExtendedAgentCard';
const V03_CARD_METHOD = 'agent/getAuthenticatedExtendedCard';

/** The method names a metric label may take; any other is `other`, so a caller cannot grow the label set. */
const KNOWN_METHODS = new Set<string>([
  ...TASK_METHODS,
  ...Object.keys(V03_TASK_METHODS),
  ...PUSH_METHODS,
  ...V03_PUSH_METHODS,
  CARD_METHOD,
  V03_CARD_METHOD,
]);

/**
 * The A2A routes (docs/a2a.md): the JSON-RPC endpoint, which answers every call — errors included —
 * as a JSON-RPC body in the shape of the version asked for, and the public agent card.
 */
export function a2aHandlers(deps: AppDeps): RouteHandlers<typeof A2A_ROUTES> {
  const a2a: A2aDeps = { registry: deps.registry, wakeMs: deps.config.keepaliveMs, push: deps.a2aPush };
  const card = cardMaker(deps);
  const methods: A2aMethodTable = {
    ...taskMethods(a2a),
    [CARD_METHOD]: async (call: A2aCall) => ({ result: await card(call.version, call.baseUrl, true) }),
    ...deps.a2aPush?.methods,
  };
  const v03 = { ...V03_TASK_METHODS, [V03_CARD_METHOD]: { v1: CARD_METHOD }, ...deps.a2aPush?.v03 };
  const metrics = deps.telemetry.metrics;
  const redactor = bridgeSecretRedactor(deps.bridgeSecrets ?? []);
  const baseUrlOf = (ctx: RouteContext) => deps.config.publicUrl ?? `${ctx.protocol}://${ctx.host}`;

  /**
   * Answers `error` as a JSON-RPC error in `version`'s shape, the bridge's secrets cut out as from
   * every error body. An error of ours keeps its code in `data`; anything else is a bug, logged and
   * answered `-32603` without its message. After the stream began there is no answer: it is cut.
   */
  const answerError = (ctx: RouteContext, rpcId: RpcId, version: A2aVersion, method: string, error: unknown) => {
    const known =
      error instanceof RunbridgeError
        ? error
        : new RunbridgeError('Internal error; the server log has the details.', {
            code: 'internal_error',
            cause: error,
          });
    if (!(error instanceof RunbridgeError)) deps.telemetry.logger.error({ err: error, method }, 'a2a call failed');
    metrics.a2aCall(method, version, RPC_REASONS[rpcCodeOf(known)]);
    if (ctx.res.headersSent) {
      ctx.res.destroy();
      return;
    }
    const answer = rpcError(rpcId, known, version);
    ctx.status = answer.status;
    if (known.retryAfterSeconds !== undefined) ctx.set('Retry-After', String(known.retryAfterSeconds));
    ctx.body = redactor.empty ? answer.body : redactor.value(answer.body);
  };

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
          baseUrl: baseUrlOf(ctx),
          signal,
        });
        metrics.a2aCall(method, version, 'ok');
        if ('stream' in answer) {
          await serveTaskStream(ctx, deps, answer.stream, rpcId, version);
          return;
        }
        ctx.body = rpcResult(rpcId, call.result(answer.result));
      } catch (error) {
        answerError(ctx, rpcId, version, method, error);
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
      ctx.set('Vary', 'A2A-Version');
      ctx.set('Cache-Control', 'public, max-age=60');
      ctx.body = await card(version, baseUrlOf(ctx), false);
    },
  };
}

/**
 * The agent card in `version`'s shape: one skill per environment with its tools, as the ORS server
 * lists them (none while it does not answer: the card still serves). The extended card adds the models.
 */
function cardMaker(deps: AppDeps) {
  return async (version: A2aVersion, baseUrl: string, extended: boolean) => {
    const [envs, defaultEnv, models] = await Promise.all([
      deps.environments
        .list()
        .then((list) =>
          Promise.all(list.map(async (env) => ({ ...env, tools: await deps.environments.tools(env.id) }))),
        )
        .catch(() => undefined),
      deps.environments.defaultEnv().catch(() => undefined),
      extended ? deps.models.list().catch(() => undefined) : undefined,
    ]);
    return agentCardFor(
      version,
      envs,
      {
        baseUrl,
        keysRequired: deps.authenticator.required,
        pushNotifications: deps.a2aPush !== undefined,
        defaultEnv,
        ...(models === undefined
          ? {}
          : { models: { ids: models.models.map((model) => model.id), default: models.defaultModel } }),
      },
      extended,
    );
  };
}

/** A body that could not be read as an error of the JSON-RPC envelope: `-32700` for bad JSON, `-32600` otherwise. */
function asEnvelopeError(error: unknown): unknown {
  if (!(error instanceof RunbridgeError)) return error;
  const rpcCode = error.code === 'invalid_json' ? RPC_CODES.parseError : RPC_CODES.invalidRequest;
  // A body over the cap keeps its status (413): proxies and clients act on it.
  const status = error.code === 'body_too_large' ? error.status : 200;
  return new A2aError(rpcCode, error.message, { code: error.code, status, cause: error });
}
