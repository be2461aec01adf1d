import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ModelRegistry } from '../../src/models/model-registry.js';
import { OrsClient } from '../../src/ors/client/ors-client.js';
import { createOrsServer, type OrsServer } from '../../src/ors/server/create-ors-server.js';
import { isTerminalEvent } from '../../src/protocol/run-events.js';
import { type RunRequestInput, RunRequestSchema } from '../../src/protocol/run-request.js';
import { EnvCatalog } from '../../src/runs/env-catalog.js';
import { RunRegistry, type RunRegistryOptions } from '../../src/runs/run-registry.js';
import { MemoryRunStore } from '../../src/store/memory/memory-run-store.js';
import { noTelemetry } from '../../src/telemetry/no-telemetry.js';
import { captureLog } from '../support/captured-log.js';
import { probeEnvironment } from '../support/probe-environment.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { deferred } from '../support/test-environment.js';
import { unkeyedHash } from '../support/unkeyed-hash.js';

const OWNER = 'owner-1';
/** A run request as `POST /v1/runs` hands it on: validated, its defaults filled in. */
const request = (body: RunRequestInput = {}) => RunRequestSchema.parse(body);
/** Waits are ended by events; the bound only stops a broken test. */
const patiently = { timeout: 20_000 };

describe('RunRegistry', () => {
  let orsServer: OrsServer;
  let ors: OrsClient;
  let registry: RunRegistry | undefined;

  beforeEach(async () => {
    orsServer = createOrsServer({ environments: [probeEnvironment] });
    ors = new OrsClient({ baseUrl: await orsServer.listen(0, '127.0.0.1') });
  });
  afterEach(async () => {
    await registry?.shutdown(0);
    registry = undefined;
    vi.restoreAllMocks();
    await orsServer.close();
  });

  function newStore(): MemoryRunStore {
    return new MemoryRunStore({
      maxQueuedRuns: 4,
      maxRunningPerKey: 4,
      maxQueuedPerKey: 4,
      maxQueuedBytes: 1024 * 1024,
      maxStoredBytes: 16 * 1024 * 1024,
      maxStoredBytesPerKey: 16 * 1024 * 1024,
      maxRunBytes: 16 * 1024 * 1024,
      orphanTtlMs: 60_000,
      retentionMs: 60_000,
      maxEventsPerRun: 1000,
      streamFlushMs: 0,
    });
  }

  function start({
    store = newStore(),
    ...options
  }: Partial<Omit<RunRegistryOptions, 'store' | 'streams'>> & { store?: MemoryRunStore } = {}): RunRegistry {
    registry = new RunRegistry({
      ors,
      // Without tool calls the scripted model answers at once, so every run completes in one turn.
      models: new ModelRegistry([scriptedProvider({ done: [] })], 'scripted:done'),
      store,
      streams: store.streams,
      catalog: new EnvCatalog(ors, { defaultEnv: 'probe' }),
      sweepMs: 1000,
      limits: { maxConcurrentRuns: 4, maxEventsPerRun: 1000, runTimeoutMs: 60_000, toolOutputEventChars: 100 },
      ...options,
    });
    return registry;
  }

  /** Holds the environment catalog's first ORS round trip (a cold cache) until the returned gate settles. */
  function holdCatalog(): { release(): void; fail(error: Error): void } {
    const gate = deferred<Error | undefined>();
    const listEnvironments = ors.listEnvironments.bind(ors);
    vi.spyOn(ors, 'listEnvironments').mockImplementationOnce(async (signal) => {
      const error = await gate.promise;
      if (error) throw error;
      return listEnvironments(signal);
    });
    return { release: () => gate.resolve(undefined), fail: (error) => gate.resolve(error) };
  }

  describe('with an Idempotency-Key', () => {
    it('starts one run for two concurrent requests while the catalog lookup is in flight, and answers both with it', async () => {
      const runs = start();
      const catalog = holdCatalog();
      const first = runs.create(request({ metadata: { a: 1 } }), OWNER, 'key-1');
      const second = runs.create(request({ metadata: { a: 1 } }), OWNER, 'key-1');
      catalog.release();
      const [a, b] = await Promise.all([first, second]);
      expect(a.created).toBe(true);
      expect(b).toEqual({ record: a.record, status: 'running', created: false });
      expect((await runs.list(OWNER, { limit: 100 })).data.map((run) => run.run_id)).toEqual([a.record.id]);
    });

    it('answers 409 for another body while the first request is still being created', async () => {
      const runs = start();
      const catalog = holdCatalog();
      const first = runs.create(request({ metadata: { a: 1 } }), OWNER, 'key-1');
      const other = runs.create(request({ metadata: { a: 2 } }), OWNER, 'key-1');
      catalog.release();
      await expect(other).rejects.toMatchObject({ status: 409, code: 'idempotency_conflict' });
      await first;
      expect((await runs.list(OWNER, { limit: 100 })).data).toHaveLength(1);
    });

    it('frees the key of a request that failed, so its retry starts the run', async () => {
      const runs = start();
      const catalog = holdCatalog();
      const first = runs.create(request(), OWNER, 'key-1');
      catalog.fail(new Error('ORS is down'));
      await expect(first).rejects.toThrow('ORS is down');
      const retry = await runs.create(request(), OWNER, 'key-1');
      expect(retry.created).toBe(true);
    });

    it('hands the store only a hash keyed by the instance secret, which a dump cannot test guessed secrets against', async () => {
      const body = request({ secrets: { pin: '4821' } });
      /** The body hash the store holds for key `pin-run` when a registry with `secret` creates the run. */
      const storedHash = async (secret: Buffer | undefined): Promise<string> => {
        const store = newStore();
        const claim = vi.spyOn(store, 'claimKey');
        const runs = start({ store, ...(secret ? { secret } : {}) });
        const { record } = await runs.create(body, OWNER, 'pin-run');
        const { log } = await runs.open(record.id, OWNER);
        await vi.waitFor(() => expect(log.terminal).toBeDefined(), patiently);
        await runs.shutdown(0);
        return claim.mock.calls[0]![2];
      };
      const shared = randomBytes(32);
      const stored = await storedHash(shared);
      expect(stored).toMatch(/^[0-9a-f]{64}$/);
      // Two instances sharing the secret bind the same body to the same hash; any other secret to another.
      expect(await storedHash(Buffer.from(shared))).toBe(stored);
      expect(await storedHash(randomBytes(32))).not.toBe(stored);
      // Without a secret given, each registry has one of its own.
      expect(await storedHash(undefined)).not.toBe(await storedHash(undefined));
      for (let pin = 0; pin < 10_000; pin++) {
        const guess = { ...body, secrets: { pin: String(pin).padStart(4, '0') } };
        expect(unkeyedHash(guess)).not.toBe(stored);
      }
    });

    it('frees the key of a deleted run, so the key starts a new run', async () => {
      const runs = start();
      const { record } = await runs.create(request(), OWNER, 'key-1');
      const { log } = await runs.open(record.id, OWNER);
      await vi.waitFor(() => expect(log.terminal).toBeDefined(), patiently);
      await runs.delete(record.id, OWNER);
      const again = await runs.create(request(), OWNER, 'key-1');
      expect(again.created).toBe(true);
      expect(again.record.id).not.toBe(record.id);
    });
  });

  it('refuses with 503 a request (and its waiting duplicate) whose lookup was in flight when shutdown began, and registers no run', async () => {
    const runs = start();
    const catalog = holdCatalog();
    const first = runs.create(request(), OWNER, 'key-1');
    const duplicate = runs.create(request(), OWNER, 'key-1');
    await runs.shutdown(0);
    catalog.release();
    await expect(first).rejects.toMatchObject({ status: 503, code: 'draining' });
    await expect(duplicate).rejects.toMatchObject({ status: 503, code: 'draining' });
    expect((await runs.list(OWNER, { limit: 100 })).data).toEqual([]);
  });

  it('reports a background task that fails to its log, not the console', async () => {
    const log = captureLog();
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const runs = start({ telemetry: { ...noTelemetry, logger: log.logger } });
    const { record } = await runs.create(request(), OWNER);
    // A listener that throws on the terminal event makes the episode itself reject: a bug, reported.
    const bug = new Error('listener bug');
    (await runs.open(record.id, OWNER)).log.onAppend(({ event }) => {
      if (isTerminalEvent(event)) throw bug;
    });
    await vi.waitFor(
      () =>
        expect(log.lines()).toContainEqual(
          expect.objectContaining({
            msg: 'background task failed',
            err: expect.objectContaining({ message: bug.message }),
          }),
        ),
      patiently,
    );
    expect(consoleError).not.toHaveBeenCalled();
  });
});
