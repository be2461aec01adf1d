import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOfflineProvider } from '../../adapters/models/offline/offline-provider.js';
import { ModelError } from '../../src/errors.js';
import type { Model, ModelPart, ModelRequest } from '../../src/models/model.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import { type RolloutManifest, RolloutManifestSchema } from '../../src/rollouts/rollout-manifest.js';
import { rolloutKey } from '../../src/rollouts/rollout-plan.js';
import { type TrajectoryRecord, TrajectoryRecordSchema } from '../../src/rollouts/trajectory-schema.js';
import { useStarted } from '../support/use-started.js';

/** The built-in ORS server on loopback, a client of it, and a scratch folder for rollout files. */
export interface RolloutRig {
  server: OrsServer;
  /** The server's base URL. */
  url: string;
  ors: OrsClient;
  dir: string;
  /** A path in the scratch folder. */
  path(name: string): string;
  close(): Promise<void>;
}

/** Starts a {@link RolloutRig}; `close()` stops the server and removes the folder. */
export async function startRolloutRig(): Promise<RolloutRig> {
  const server = createOrsServer({ environments: builtinEnvironments });
  const url = await server.listen(0, '127.0.0.1');
  const dir = mkdtempSync(join(tmpdir(), 'rollouts-'));
  return {
    server,
    url,
    ors: new OrsClient({ baseUrl: url, retryBaseDelayMs: 1, retryMaxDelayMs: 10 }),
    dir,
    path: (name) => join(dir, name),
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a {@link RolloutRig} before the tests of the enclosing `describe` and closes it after them;
 * what it returns stands for the rig ({@link useStarted}).
 */
export function useRolloutRig(): RolloutRig {
  return useStarted('the rollout rig', startRolloutRig, (rig) => rig.close());
}

/** The offline model without token delays. */
export function offlineModel(): Model {
  return createOfflineProvider({ tokenDelayMs: 0 }).create('');
}

/**
 * `inner`, except that calls `decide` picks behave otherwise: `fail` throws a `model_unavailable`
 * `ModelError`, `hang` waits until the request is aborted. The id stays `inner.id`, so a file written
 * with it can be resumed with `inner`.
 */
export function misbehavingModel(inner: Model, decide: (request: ModelRequest) => 'fail' | 'hang' | 'play'): Model {
  return {
    id: inner.id,
    stream(request) {
      switch (decide(request)) {
        case 'fail':
          return failing();
        case 'hang':
          return hanging(request.signal);
        case 'play':
          return inner.stream(request);
      }
    },
  };
}

/** A stream that fails before its first part. */
// biome-ignore lint/correctness/useYield: it fails before it would yield, which is the point.
async function* failing(): AsyncGenerator<ModelPart> {
  throw new ModelError('The fake model server answered 503 after its retries.', { code: 'model_unavailable' });
}

/** A stream that yields nothing until it is aborted. */
async function* hanging(signal: AbortSignal): AsyncGenerator<ModelPart> {
  await new Promise((_, reject) => {
    signal.throwIfAborted();
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Every line of a rollout file, each checked against the schema (a torn or invalid line throws). */
export function readRecords(path: string): TrajectoryRecord[] {
  const text = readFileSync(path, 'utf8');
  if (text !== '' && !text.endsWith('\n')) throw new Error(`${path} ends in a partial line`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => TrajectoryRecordSchema.parse(JSON.parse(line)));
}

/** The manifest at `path`, checked against its schema. */
export function readManifestFile(path: string): RolloutManifest {
  return RolloutManifestSchema.parse(JSON.parse(readFileSync(path, 'utf8')));
}

/** `<group id>#<sample>` of each record. */
export function keysOf(records: readonly TrajectoryRecord[]): string[] {
  return records.map((record) => rolloutKey(record.group_id, record.sample_index));
}

/** What must not depend on where an episode was played: its pair, seed, reward, ending and conversation. */
export function played(records: readonly TrajectoryRecord[]) {
  return records
    .map((record) => ({
      key: keysOf([record])[0],
      seed: record.sampling.seed,
      status: record.status,
      reward: record.reward,
      stopReason: record.stop_reason,
      messages: record.messages,
    }))
    .sort((a, b) => a.key!.localeCompare(b.key!));
}
