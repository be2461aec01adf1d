import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { ApiError } from '../client/client-errors.js';
import { clientTransport, send, sendForJson } from '../client/client-transport.js';
import { RunbridgeError } from '../errors.js';
import { ERROR_CODE_NAMES, type ErrorCode } from '../protocol/error-codes.js';
import { buildManifest, checkSameSettings, type GenerateRolloutsOptions, parseSettings } from './generate-rollouts.js';
import { startingProgress } from './rollout-batch.js';
import {
  manifestPathFor,
  type RolloutConfig,
  type RolloutManifest,
  readManifest,
  writeManifest,
} from './rollout-manifest.js';
import { parseTaskSelection, planRollouts, resolveTaskIndices, rolloutKey } from './rollout-plan.js';
import { type RolloutSnapshot, RolloutSnapshotSchema } from './rollout-snapshot.js';
import { TrajectoryRecordSchema } from './trajectory-schema.js';
import { type RolloutResult, withRolloutFile } from './with-rollout-file.js';

/** What {@link remoteRollouts} asks of a bridge, and where it writes: `generateRollouts`'s settings without the ORS client and model. */
export interface RemoteRolloutsOptions extends Omit<GenerateRolloutsOptions, 'ors' | 'model' | 'retryFailed' | 'env'> {
  /** Default: the bridge's default environment. */
  env?: string;
  /** The bridge (or the cluster behind one URL). */
  server: string;
  /** Its bearer key, when it wants one. */
  apiKey?: string;
  /** `provider:name` as the bridge resolves it. */
  model: string;
}

/** Reconnections of the records stream in a row, without a record between them, before the batch is given up. */
const MAX_RECONNECTS = 5;
/** How often the running count of the progress line is asked of the bridge. */
const SNAPSHOT_EVERY_MS = 1000;

/**
 * `runbridge rollout --server`: submits the batch to a bridge (`POST /v1/rollouts`) instead of playing it
 * here, and streams its records into the JSONL file and manifest `generateRollouts` writes, with the
 * same checks, lock and resume rules. The idempotency key is derived from the file's path and the
 * batch's settings, so a rerun resumes the same batch on the bridge (while the bridge keeps it);
 * records of pairs the file already holds are never written again. Aborting `signal` stops reading
 * (status `interrupted`): the batch goes on on the bridge, and a rerun picks it up.
 */
export async function remoteRollouts(options: RemoteRolloutsOptions): Promise<RolloutResult> {
  const server = options.server.replace(/\/+$/, '');
  const http = bridgeHttp(server, options.apiKey, options.signal);
  const env = options.env ?? (await http.defaultEnv());
  const settings = parseSettings({ ...options, env });
  const now = options.now ?? Date.now;
  const startedAt = now();
  const body = {
    env: settings.env,
    ...(settings.split === undefined ? {} : { split: settings.split }),
    tasks: settings.tasks ?? '0:',
    samples: settings.samples,
    model: options.model,
    sampling: settings.sampling,
    seed: settings.seed,
    max_turns: settings.maxTurns,
    ...(settings.instructions === undefined ? {} : { instructions: settings.instructions }),
    ...(settings.policyVersion === undefined ? {} : { policy_version: settings.policyVersion }),
    reward_reduction: settings.rewardReduction,
    retries: settings.retries,
    timeout_seconds: settings.timeoutMs / 1000,
  };
  const key = `rollout-${createHash('sha256')
    .update(JSON.stringify([resolve(settings.out), body]))
    .digest('hex')
    .slice(0, 40)}`;

  return withRolloutFile(settings.out, options.signal, async (store) => {
    const created = await http.create(body, key);
    let snapshot = await http.snapshot(created.rollout_id);
    const config: RolloutConfig = {
      ...snapshot.config,
      concurrency: settings.concurrency,
      retry_failed: false,
      pass_threshold: settings.passThreshold,
    };
    const manifestPath = manifestPathFor(settings.out);
    if (store.size > 0) checkSameSettings(settings.out, readManifest(manifestPath), config);
    const indices = resolveTaskIndices(parseTaskSelection(config.tasks), Number.MAX_SAFE_INTEGER);
    const plan = planRollouts({
      env: config.env,
      split: config.split,
      indices,
      samples: config.samples,
      masterSeed: config.seed,
    });
    const pending = plan.filter((rollout) => store.outcome(rollout.key) === undefined).length;
    const progress = startingProgress(plan.length, plan.length - pending, startedAt, snapshot.running);
    const manifestOf = (status: RolloutManifest['status']): RolloutManifest =>
      buildManifest({ status, out: settings.out, config, plan, store, progress, startedAt, now: now() });
    writeManifest(manifestPath, manifestOf('running'));
    options.onProgress?.({ ...progress });

    let rewardSum = 0;
    let lastManifest = now();
    let lastSnapshot = now();
    let after = -1;
    let reconnects = 0;
    while (!options.signal?.aborted) {
      let read = 0;
      try {
        for await (const line of http.records(created.rollout_id, after)) {
          after++;
          read++;
          const record = TrajectoryRecordSchema.parse(JSON.parse(line));
          if (store.outcome(rolloutKey(record.group_id, record.sample_index)) !== undefined) continue;
          store.append(record);
          if (record.status === 'completed') {
            progress.completed++;
            rewardSum += record.reward ?? 0;
            progress.meanReward = rewardSum / progress.completed;
          } else {
            progress.failed++;
          }
          options.onRecord?.(record);
          if (now() - lastSnapshot >= SNAPSHOT_EVERY_MS) {
            lastSnapshot = now();
            progress.running = (await http.snapshot(created.rollout_id)).running;
          }
          options.onProgress?.({ ...progress });
          if (now() - lastManifest >= settings.manifestIntervalMs) {
            lastManifest = now();
            writeManifest(manifestPath, manifestOf('running'));
          }
        }
        snapshot = await http.snapshot(created.rollout_id);
        if (snapshot.status === 'completed' || snapshot.status === 'cancelled') break;
      } catch (error) {
        if (options.signal?.aborted) break;
        // A dropped connection resumes from the last record read; a refusal of the bridge is final.
        if (error instanceof RunbridgeError || ++reconnects > MAX_RECONNECTS) throw error;
        if (read > 0) reconnects = 0;
        await new Promise((done) => setTimeout(done, 200 * reconnects));
      }
    }
    // The running count came from the last snapshot, taken while the batch ran: the display's last
    // line must not say `32/32 done, 32 running`.
    progress.running = 0;
    options.onProgress?.({ ...progress });
    return manifestOf;
  });
}

/** The few calls {@link remoteRollouts} makes of a bridge, through the client's transport; a refusal thrown as the bridge's own error. */
function bridgeHttp(server: string, apiKey: string | undefined, signal: AbortSignal | undefined) {
  const transport = clientTransport({ baseUrl: server, apiKey });
  /** What `call` resolves to; a refusal of the bridge is final, and said in the CLI's terms. */
  const refused = async <T>(call: Promise<T>): Promise<T> => {
    try {
      return await call;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401) {
        throw new RunbridgeError(
          `the bridge at ${server} wants an API key: pass --api-key KEY, or set RUNBRIDGE_API_KEY.`,
          { code: 'unauthorized' },
        );
      }
      const known = (ERROR_CODE_NAMES as readonly string[]).includes(error.code);
      throw new RunbridgeError(`the bridge at ${server} refused the batch (${error.status}): ${error.message}`, {
        code: known ? (error.code as ErrorCode) : 'internal_error',
        details: { status: error.status },
      });
    }
  };
  return {
    defaultEnv: async () => (await refused(sendForJson(transport, { route: 'GET /v1/environments', signal }))).default,
    create: (body: unknown, idempotencyKey: string) =>
      refused(
        sendForJson(transport, {
          route: 'POST /v1/rollouts',
          body,
          headers: { 'Idempotency-Key': idempotencyKey },
          signal,
        }),
      ),
    snapshot: async (id: string): Promise<RolloutSnapshot> =>
      RolloutSnapshotSchema.parse(
        await refused(sendForJson(transport, { route: 'GET /v1/rollouts/:id', params: { id }, signal })),
      ),
    /** The non-blank lines of the batch's NDJSON records after seq `after`, as they arrive; ends with the answer. */
    async *records(id: string, after: number): AsyncGenerator<string> {
      const response = await refused(
        send(transport, { route: 'GET /v1/rollouts/:id/records', params: { id }, query: { after }, signal }),
      );
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let newline = buffered.indexOf('\n');
        while (newline >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.trim() !== '') yield line;
          newline = buffered.indexOf('\n');
        }
      }
    },
  };
}
