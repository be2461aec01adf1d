import { EnvironmentListSchema, ModelListSchema } from '../../protocol/api-answers.js';
import { named, type RouteTable } from './route.js';
import { ORS_ERRORS } from './route-errors.js';

/** What a run may name: the models the bridge drives, the environments and tasks the ORS server has. */
export const CATALOG_ROUTES = {
  'GET /v1/models': {
    summary: 'The models the bridge can drive',
    description:
      "What `model` of `POST /v1/runs` may name: an OpenAI-compatible server's own list (cached for 30 s) or `OPENAI_MODELS`, each provider's default otherwise ([models](models.md#what-get-v1models-lists)); `default`, the model of requests that name none; `unreachable`, the servers that did not say what they serve, each listed by its default meanwhile.",
    access: 'key',
    answers: {
      200: { description: 'OpenAI’s list shape; ids are `provider:name`.', json: named('ModelList', ModelListSchema) },
    },
    errors: [],
  },
  'GET /v1/environments': {
    summary: 'The environments a run may play, with their splits and task counts',
    description:
      'What `env` and `task` of `POST /v1/runs` may name, as the ORS server lists them (cached for 30 s): each environment with its splits (name, ORS kind) and their task counts, and `default`, the environment of requests that name none.',
    access: 'key',
    answers: {
      200: {
        description: "The environments, in the ORS server's order.",
        json: named('EnvironmentList', EnvironmentListSchema),
      },
    },
    errors: ORS_ERRORS,
  },
} as const satisfies RouteTable;
