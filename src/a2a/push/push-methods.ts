import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { A2aDeps, A2aPush } from '../a2a-deps.js';
import { A2aError, RPC_CODES } from '../a2a-error.js';
import type { A2aCall, A2aMethodTable, V03MethodTable } from '../a2a-methods.js';
import { A2aIdSchema, type PushConfig, type PushConfigInput, PushConfigInputSchema } from '../a2a-schemas.js';
import type { A2aStore, StoredPushConfig } from '../a2a-store.js';
import type { A2aVersion } from '../a2a-version.js';
import { openTask, paramsOf } from '../task-methods.js';
import { pushConfigFromV03 } from '../v03-wire.js';
import type { PushNotifier } from './push-notifier.js';
import type { PushSender } from './push-sender.js';

export interface A2aPushOptions {
  registry: A2aDeps['registry'];
  store: A2aStore;
  sender: PushSender;
  notifier: PushNotifier;
  /** The most configs one task holds (`RUNBRIDGE_A2A_MAX_PUSH_CONFIGS`). */
  maxConfigs: number;
  /** How long a task's configs are kept: as long as its run may last and then be remembered. */
  ttlMs: number;
}

const tenant = { tenant: z.string().max(256).optional() };
const CreateParamsSchema = PushConfigInputSchema.extend({ taskId: A2aIdSchema });
const ConfigIdParamsSchema = z.object({ ...tenant, taskId: A2aIdSchema, id: A2aIdSchema.optional() });
const ListParamsSchema = z.object({
  ...tenant,
  taskId: A2aIdSchema,
  pageSize: z.number().int().nonnegative().optional(),
  pageToken: z.string().max(1024).optional(),
});

/**
 * The push notification config methods (docs/a2a.md, "Push notifications"), v1.0 and v0.3, scoped
 * like every task method by the caller's key: another key's task is `-32001`, as an unknown one.
 */
export function createA2aPush(options: A2aPushOptions): A2aPush {
  const { store, registry, sender, notifier } = options;

  /** Stores `input` for task `taskId` (the caller's, checked by the caller) or refuses it past the cap. */
  async function put(taskId: string, input: PushConfigInput, version: A2aVersion): Promise<StoredPushConfig> {
    const config: StoredPushConfig = {
      id: input.id ?? randomUUID(),
      taskId,
      url: input.url,
      ...(input.token === undefined ? {} : { token: input.token }),
      ...(input.authentication === undefined ? {} : { authentication: input.authentication }),
      version,
    };
    if ((await store.putPushConfig(config, options.maxConfigs, options.ttlMs)) === 'full') {
      throw new A2aError(
        RPC_CODES.refused,
        `Task "${taskId}" holds ${options.maxConfigs} push notification configs already ` +
          '(RUNBRIDGE_A2A_MAX_PUSH_CONFIGS): delete one, or set one of the same id in its place.',
        { code: 'push_configs_full', status: 200 },
      );
    }
    return config;
  }

  async function find(taskId: string, id: string | undefined): Promise<StoredPushConfig> {
    const configs = await store.pushConfigs(taskId);
    // A v0.3 get without a config id reads the task's first config.
    const found = id === undefined ? configs[0] : configs.find((config) => config.id === id);
    if (found === undefined) {
      throw new A2aError(
        RPC_CODES.invalidParams,
        `Task "${taskId}" has no push notification config${id === undefined ? '' : ` "${id}"`}.`,
        { code: 'push_config_not_found', status: 200 },
      );
    }
    return found;
  }

  const methods: A2aMethodTable = {
    async CreateTaskPushNotificationConfig(call: A2aCall) {
      const { tenant: _tenant, taskId, ...input } = paramsOf(CreateParamsSchema, call.params);
      await openTask({ registry }, taskId, call.owner);
      await sender.checkPushUrl(input.url);
      return { result: resultOf(await put(taskId, input, call.version)) };
    },
    async GetTaskPushNotificationConfig(call: A2aCall) {
      const { taskId, id } = paramsOf(ConfigIdParamsSchema, call.params);
      await openTask({ registry }, taskId, call.owner);
      return { result: resultOf(await find(taskId, id)) };
    },
    async ListTaskPushNotificationConfigs(call: A2aCall) {
      const { taskId } = paramsOf(ListParamsSchema, call.params);
      await openTask({ registry }, taskId, call.owner);
      // A task holds few configs (the cap): one page has them all.
      return { result: { configs: (await store.pushConfigs(taskId)).map(resultOf), nextPageToken: '' } };
    },
    async DeleteTaskPushNotificationConfig(call: A2aCall) {
      const { taskId, id } = paramsOf(ConfigIdParamsSchema.required({ id: true }), call.params);
      await openTask({ registry }, taskId, call.owner);
      // Idempotent (A2A v1.0 §3.1.9): deleting a config already gone answers the same.
      await store.deletePushConfig(taskId, id);
      return { result: {} };
    },
  };

  const v03: V03MethodTable = {
    'tasks/pushNotificationConfig/set': {
      v1: 'CreateTaskPushNotificationConfig',
      params: ({ taskId, pushNotificationConfig }) => ({
        ...(pushConfigFromV03(pushNotificationConfig) as Record<string, unknown>),
        taskId,
      }),
      result: (result) => configToV03(result as PushConfig),
    },
    'tasks/pushNotificationConfig/get': {
      v1: 'GetTaskPushNotificationConfig',
      params: ({ id, pushNotificationConfigId }) => ({ taskId: id, id: pushNotificationConfigId }),
      result: (result) => configToV03(result as PushConfig),
    },
    'tasks/pushNotificationConfig/list': {
      v1: 'ListTaskPushNotificationConfigs',
      params: ({ id }) => ({ taskId: id }),
      result: (result) => (result as { configs: PushConfig[] }).configs.map(configToV03),
    },
    'tasks/pushNotificationConfig/delete': {
      v1: 'DeleteTaskPushNotificationConfig',
      params: ({ id, pushNotificationConfigId }) => ({ taskId: id, id: pushNotificationConfigId }),
      result: () => null,
    },
  };

  return {
    methods,
    v03,
    check: (config) => sender.checkPushUrl(config.url),
    async configure(taskId, owner, input, version) {
      const config = await put(taskId, input, version);
      // The task began before its config was stored: what it wrote meanwhile is pushed now.
      const run = await openTask({ registry }, taskId, owner);
      await notifier.catchUp(run.record, run.log.entries, config);
    },
  };
}

/** A stored config as the methods answer it: its receiver's credentials are never read back. */
function resultOf(config: StoredPushConfig): PushConfig {
  return {
    id: config.id,
    taskId: config.taskId,
    url: config.url,
    ...(config.token === undefined ? {} : { token: config.token }),
    ...(config.authentication === undefined ? {} : { authentication: { scheme: config.authentication.scheme } }),
  };
}

/** A config in v0.3's shape (`TaskPushNotificationConfig` wrapping a `PushNotificationConfig`). */
function configToV03(config: PushConfig): Record<string, unknown> {
  const { taskId, authentication, ...rest } = config;
  return {
    taskId,
    pushNotificationConfig: {
      ...rest,
      ...(authentication === undefined ? {} : { authentication: { schemes: [authentication.scheme] } }),
    },
  };
}
