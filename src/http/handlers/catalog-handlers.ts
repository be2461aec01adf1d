import type { z } from 'zod';
import type { EnvironmentList, ModelListSchema } from '../../protocol/api-answers.js';
import type { AppDeps } from '../app-deps.js';
import type { CATALOG_ROUTES } from '../routes/catalog-routes.js';
import type { RouteHandlers } from './route-handler.js';

/**
 * `GET /v1/models` (OpenAI's list shape, with `default`, the model of requests that name none, and
 * `unreachable`, the model servers that were asked what they serve and did not say) and
 * `GET /v1/environments` (the ORS server's environments; a failing ORS server is a 502 with the ORS
 * error's code).
 */
export function catalogHandlers(deps: AppDeps): RouteHandlers<typeof CATALOG_ROUTES> {
  const started = Math.floor(deps.now() / 1000);
  return {
    'GET /v1/models': async (ctx) => {
      const { models, defaultModel, unreachable } = await deps.models.list();
      ctx.body = {
        object: 'list',
        data: models.map((model) => ({ id: model.id, object: 'model', created: started, owned_by: model.provider })),
        default: defaultModel,
        unreachable,
      } satisfies z.infer<typeof ModelListSchema>;
    },
    'GET /v1/environments': async (ctx) => {
      ctx.body = {
        object: 'list',
        default: await deps.environments.defaultEnv(),
        data: await deps.environments.list(),
      } satisfies EnvironmentList;
    },
  };
}
