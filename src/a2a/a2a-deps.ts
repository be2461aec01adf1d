import type { RunRegistry } from '../runs/run-registry.js';
import type { A2aMethodTable, V03MethodTable } from './a2a-methods.js';
import type { PushConfigInput } from './a2a-schemas.js';
import type { A2aVersion } from './a2a-version.js';

/**
 * Push notifications, served by their own module (`src/a2a/push/`): the four config methods of each
 * version, and the config a `SendMessage` names in its `configuration`, set for the task it started.
 */
export interface A2aPush {
  methods: A2aMethodTable;
  v03: V03MethodTable;
  /** Refuses, as `CreateTaskPushNotificationConfig` would, a config whose receiver may not be called. */
  check(config: PushConfigInput): Promise<void>;
  /** Sets `config` for `owner`'s new task `taskId`, as `CreateTaskPushNotificationConfig` would. */
  configure(taskId: string, owner: string, config: PushConfigInput, version: A2aVersion): Promise<void>;
}

/** What the A2A methods use: the runs (which are the tasks), and push notifications when served. */
export interface A2aDeps {
  registry: Pick<RunRegistry, 'create' | 'open' | 'list' | 'cancel' | 'watch' | 'person'>;
  /** How long a blocking send waits on the log before looking again (the keep-alive period). */
  wakeMs: number;
  push: A2aPush | undefined;
}
