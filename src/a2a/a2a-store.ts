import type { AuthenticationInfo } from './a2a-schemas.js';
import type { A2aVersion } from './a2a-version.js';

/**
 * What the A2A endpoint keeps beside the runs (which are its tasks): every task's push notification
 * configs (a task's context rides in its run's metadata, `task-view.ts`). Two stores implement it, in
 * memory and in the shared Redis (`src/store/`), so a task started on one instance is read, answered
 * and pushed from any other; one suite of tests holds both to the same answers. Entries expire on
 * their own, a while after their run could last (`ttlMs`), as runs are forgotten after their retention.
 */

/** A push notification config as stored: where and how to push, and which protocol version shapes the pushes. */
export interface StoredPushConfig {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: AuthenticationInfo;
  /** The version it was set with: v1.0 configs get stream events, v0.3 ones the task (A2A v1.0 §4.3.3, v0.3 §9.5). */
  version: A2aVersion;
}

/** What {@link A2aStore.putPushConfig} did: stored it (new, or in place of one of the same id), or refused it past the cap. */
export type PushConfigWrite = 'stored' | 'full';

export interface A2aStore {
  /**
   * Stores `config` for its task, replacing the one of the same id; `full` when the task holds `max`
   * others already. Kept for `ttlMs`, as is every config of the task from then on.
   */
  putPushConfig(config: StoredPushConfig, max: number, ttlMs: number): Promise<PushConfigWrite>;
  /** Task `taskId`'s push configs, in the order they were first stored. */
  pushConfigs(taskId: string): Promise<StoredPushConfig[]>;
  /** Deletes config `id` of task `taskId`; false when there was none. */
  deletePushConfig(taskId: string, id: string): Promise<boolean>;
}
