import type { AuthenticationInfo } from './a2a-schemas.js';
import type { A2aVersion } from './a2a-version.js';

/**
 * What the A2A endpoint keeps beside the runs (which are its tasks): the context and first message of
 * each task started over A2A, and every task's push notification configs. Two stores implement it, in
 * memory and in the shared Redis (`src/store/`), so a task started on one instance is read, answered
 * and pushed from any other; one suite of tests holds both to the same answers. Entries expire on
 * their own, a while after their run could last (`ttlMs`), as runs are forgotten after their retention.
 */

/** The A2A side of a task started over A2A: whose it is, its context, and the id of the message that started it. */
export interface A2aTaskInfo {
  owner: string;
  contextId: string;
  messageId: string;
}

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
  /** Records task `taskId`'s A2A side, before its run is created, for `ttlMs`. */
  putTask(taskId: string, info: A2aTaskInfo, ttlMs: number): Promise<void>;
  /** The A2A side of each of `taskIds` (undefined for a task not started over A2A, or expired), in order. */
  tasks(taskIds: readonly string[]): Promise<Array<A2aTaskInfo | undefined>>;
  /** Forgets task `taskId`'s A2A side and its push configs (its run was refused). */
  forgetTask(taskId: string): Promise<void>;
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
