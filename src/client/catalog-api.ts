import { type ClientTransport, sendForJson } from './client-transport.js';
import type { EnvironmentList, ModelList } from './client-types.js';
import type { RequestOptions } from './runs-api.js';

/** The models the bridge can drive (`GET /v1/models`). */
export interface ModelsApi {
  /** Every model the bridge can drive, in OpenAI's list shape; ids are `provider:name` (docs/models.md). */
  list(options?: RequestOptions): Promise<ModelList>;
}

/** The environments a run may play (`GET /v1/environments`). */
export interface EnvironmentsApi {
  /**
   * The ORS server's environments, each with its splits and their task counts, and `default`, the
   * environment of a run that names none: what `env` and `task` of `runs.create` may be.
   */
  list(options?: RequestOptions): Promise<EnvironmentList>;
}

/** The {@link ModelsApi} over `transport`. */
export function modelsApi(transport: ClientTransport): ModelsApi {
  return { list: ({ signal } = {}) => sendForJson(transport, { route: 'GET /v1/models', signal }) };
}

/** The {@link EnvironmentsApi} over `transport`. */
export function environmentsApi(transport: ClientTransport): EnvironmentsApi {
  return { list: ({ signal } = {}) => sendForJson(transport, { route: 'GET /v1/environments', signal }) };
}
