import { bridgeSecretsOf } from '../bridge-secrets-of.js';
import { loadConfig } from '../config/index.js';
import { configuredModel } from '../configured-model.js';
import { connectOrs } from '../connect-ors.js';
import type { RolloutWorkerRuntime } from '../rollouts/workers/rollout-worker-setup.js';

/** What `runbridge rollout` hands each of its worker threads. */
export interface RolloutCommandWorkerData {
  /** The command's configuration, as variables (`--ors-url` already folded in). */
  env: Record<string, string | undefined>;
  /** `--model`, when given. */
  model: string | undefined;
}

/**
 * The setup of `runbridge rollout`'s worker threads (`--workers`): the model the command resolved,
 * built again from the same configuration with its provider alone, and a client of `ORS_URL` or, without one, of a built-in
 * ORS server of the thread's own, so the environments' work is spread over the threads too; the
 * configuration's secrets are cut out of the episodes, as in the command's own thread.
 */
export async function setUpRolloutWorker(data: unknown): Promise<RolloutWorkerRuntime> {
  const { env, model } = data as RolloutCommandWorkerData;
  const config = loadConfig(env);
  const { model: resolved, providers } = await configuredModel(config, model);
  const { ors, orsServer } = await connectOrs(config);
  return { model: resolved, ors, redact: bridgeSecretsOf(config, providers), close: async () => orsServer?.close() };
}
