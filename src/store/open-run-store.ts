import { customAlphabet } from 'nanoid';
import type { Config } from '../config/index.js';
import type { RolloutBatchStore } from '../rollouts/rollout-batch-store.js';
import type { RunStore, StoreLimits } from '../runs/run-store.js';
import type { RunStreams } from '../runs/run-streams.js';
import { StoreUnavailableError } from '../runs/store-unavailable-error.js';
import type { Logger } from '../telemetry/logger.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { MemoryRolloutStore } from './memory/memory-rollout-store.js';
import { MemoryRunStore } from './memory/memory-run-store.js';
import { MemoryWebhookOutbox } from './memory/memory-webhook-outbox.js';
import { StoredBytes } from './memory/stored-bytes.js';
import { RedisConnection } from './redis/redis-connection.js';
import { RedisKeys } from './redis/redis-keys.js';
import { RedisRolloutStore } from './redis/redis-rollout-store.js';
import { EXPIRY_MARGIN_MS, RedisRunStore } from './redis/redis-run-store.js';
import { RedisWebhookOutbox } from './redis/redis-webhook-outbox.js';
import { SealedSecrets } from './redis/sealed-secrets.js';
import { SharedSecret } from './redis/shared-secret.js';

/** How long start-up waits for Redis. */
const CONNECT_TIMEOUT_MS = 30_000;

const newInstanceId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 12);

/** The bounds the run store enforces, from the configuration. */
export function storeLimits(config: Config): StoreLimits {
  return {
    maxQueuedRuns: config.maxQueuedRuns,
    maxRunningPerKey: config.maxRunningPerKey,
    maxQueuedPerKey: config.maxQueuedPerKey,
    maxQueuedBytes: config.maxQueuedBytes,
    maxStoredBytes: config.maxStoredBytes,
    maxStoredBytesPerKey: config.maxStoredBytesPerKey,
    maxRunBytes: config.maxRunBytes,
    retentionMs: config.retentionMs,
    orphanTtlMs: config.orphanTtlMs,
    maxEventsPerRun: config.maxEventsPerRun,
    streamFlushMs: config.streamFlushMs,
  };
}

export interface OpenedStore {
  /** Where runs live: records, keys, the queue. */
  store: RunStore;
  /** The live side of the same store: logs as they are written and followed, control messages (closed with `store`). */
  streams: RunStreams;
  /** The secret every instance shares, or undefined for one of this process alone. */
  secret: Buffer | undefined;
  /** This instance's id in the shared store (for logs), or undefined in memory. */
  instance: string | undefined;
  /** Where webhook deliveries wait: beside the runs, in memory or in the same Redis. */
  outbox: WebhookOutbox;
  /** Where the service's rollout batches live: beside the runs, in memory or in the same Redis. */
  rollouts: RolloutBatchStore;
}

/**
 * The run store the configuration asks for: in memory, or Redis at `RUNBRIDGE_REDIS_URL`. With
 * Redis, start-up waits for it (30 s at most, then stops with a message that says so), and the
 * instances' shared secret is `RUNBRIDGE_SECRET` or, when that is not set, one kept in Redis.
 */
export async function openRunStore(config: Config, log: Logger): Promise<OpenedStore> {
  const configured = config.secret === undefined ? undefined : Buffer.from(config.secret, 'utf8');
  // A batch's records count against the same stored bytes as the runs, in all and per key.
  const byteLimits = { maxStoredBytes: config.maxStoredBytes, maxStoredBytesPerKey: config.maxStoredBytesPerKey };
  if (config.redisUrl === undefined) {
    const stored = new StoredBytes();
    const store = new MemoryRunStore(storeLimits(config), Date.now, stored);
    return {
      store,
      streams: store.streams,
      secret: configured,
      instance: undefined,
      outbox: new MemoryWebhookOutbox(config.retentionMs),
      rollouts: new MemoryRolloutStore({ stored, limits: byteLimits }),
    };
  }
  const keys = new RedisKeys(config.redisPrefix);
  const connection = new RedisConnection(config.redisUrl, {
    commandTimeoutMs: config.redisCommandTimeoutMs,
    probeKey: keys.fixed('health'),
  });
  try {
    await connection.connect(CONNECT_TIMEOUT_MS);
  } catch (error) {
    await connection.close();
    throw new StoreUnavailableError(
      `RUNBRIDGE_REDIS_URL: no Redis answered at ${redactedUrl(config.redisUrl)} within ${CONNECT_TIMEOUT_MS / 1000} s; start it, or unset RUNBRIDGE_REDIS_URL to keep runs in memory.`,
      error,
    );
  }
  // Losing Redis, and finding it again, are what an operator looks for first when runs stall.
  // Each failed reconnection closes again: only the changes are logged.
  const redis = redactedUrl(config.redisUrl);
  let wasUp = true;
  connection.onStateChange((up) => {
    if (up === wasUp) return;
    wasUp = up;
    if (up) log.info({ redis }, 'Redis connection restored');
    else log.error({ redis }, 'Redis connection lost; reconnecting');
  });
  const shared = configured === undefined ? await SharedSecret.open(connection, keys, log) : undefined;
  const secret = configured ?? shared!.value;
  const instance = `i_${newInstanceId()}`;
  const store = new RedisRunStore({
    connection,
    prefix: config.redisPrefix,
    instance,
    limits: storeLimits(config),
    leaseMs: config.leaseMs,
    queuePollMs: config.queuePollMs,
    secrets: new SealedSecrets(secret),
    ...(shared === undefined ? {} : { sharedSecret: shared }),
    log,
  });
  return {
    store,
    streams: store.streams,
    secret,
    instance,
    outbox: new RedisWebhookOutbox(connection, keys, config.retentionMs),
    rollouts: new RedisRolloutStore({
      connection,
      keys,
      expireMs: config.retentionMs + EXPIRY_MARGIN_MS,
      limits: byteLimits,
    }),
  };
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
