import type { ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOrsServer } from '../../src/ors/server/create-ors-server.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { startTestRedis, type TestRedis } from '../support/redis-server.js';
import { runEventsOf } from '../support/run-events-of.js';
import { spawnRunbridge } from '../support/spawn-runbridge.js';
import { useStarted } from '../support/use-started.js';

/** One `runbridge serve` process of a cluster. */
export interface Instance {
  name: string;
  url: string;
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Everything it wrote, stdout and stderr together. */
  output(): string;
  /** The JSON log lines on its stderr (a `--workers` primary's and its workers' alike: `pid` tells them apart). */
  logLines(): Array<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/**
 * The built-in environments behind a front that holds every `<env>/call` whose environment is
 * listed in `holding` until the test lets it go, so a test can keep runs in flight as long as it
 * needs; it also records which ORS sessions were created and deleted.
 */
export interface HeldOrs {
  url: string;
  /** Environments whose tool calls wait (add or remove names at any time). */
  holding: Set<string>;
  /** Tool calls waiting right now. */
  waiting(): number;
  /** Lets every waiting call through (calls made later still wait while their environment is held). */
  release(): void;
  /** Sessions created but not deleted. */
  openSessions(): number;
  close(): Promise<void>;
}

export async function startHeldOrs(): Promise<HeldOrs> {
  const ors = createOrsServer({ environments: builtinEnvironments, logError: () => undefined });
  const holding = new Set<string>();
  const waiting: Array<() => void> = [];
  const open = new Set<string>();
  const server = http.createServer((req, res) => {
    const sid = req.headers['x-session-id'];
    if (typeof sid === 'string' && req.url === '/create') open.add(sid);
    if (typeof sid === 'string' && req.url === '/delete_session') open.delete(sid);
    const env = /^\/([^/]+)\/call$/.exec(req.url ?? '')?.[1];
    if (env !== undefined && holding.has(env)) {
      const forward = () => ors.handler(req, res);
      waiting.push(forward);
      res.once('close', () => {
        const index = waiting.indexOf(forward);
        if (index >= 0) waiting.splice(index, 1);
      });
      return;
    }
    ors.handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    holding,
    waiting: () => waiting.length,
    release: () => {
      for (const forward of waiting.splice(0)) forward();
    },
    openSessions: () => open.size,
    async close() {
      await ors.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Several `runbridge serve` processes on one Redis and one ORS server. */
export interface Cluster {
  redis: TestRedis;
  ors: HeldOrs;
  instances: Instance[];
  /** Starts one more instance with the cluster's settings (plus `env`). */
  add(name: string, env?: Record<string, string>): Promise<Instance>;
  /** SIGKILLs every instance still running, stops Redis and the ORS server. */
  stop(): Promise<void>;
}

/** Starts `runbridge serve` with `env` and resolves once it prints that it listens. */
export async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  const child = spawnRunbridge(['serve'], { env: { PATH: process.env.PATH ?? '', ...env } });
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    errors += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /runbridge listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout.on('data', look);
    void exited.then((code) => reject(new Error(`${name} exited with ${code} before listening:\n${output}`)));
  });
  const logLines = () =>
    errors
      .split('\n')
      .filter((line) => line.startsWith('{') && line.endsWith('}'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { name, url, child, output: () => output, logLines, exited };
}

/**
 * Starts a Redis, a held ORS front and `count` instances sharing them (`A`, `B`, `C`, …), with a
 * short lease and a frequent sweep so a lost instance or an orphan is noticed quickly, and `env` on top.
 */
export async function startCluster(count: number, env: Record<string, string> = {}): Promise<Cluster> {
  const redis = await startTestRedis();
  const ors = await startHeldOrs();
  const settings = {
    PORT: '0',
    HOST: '127.0.0.1',
    ORS_URL: ors.url,
    RUNBRIDGE_REDIS_URL: redis.url,
    RUNBRIDGE_REDIS_PREFIX: redis.prefix(),
    RUNBRIDGE_LEASE_SECONDS: '2',
    RUNBRIDGE_SWEEP_SECONDS: '0.1',
    RUNBRIDGE_KEEPALIVE_SECONDS: '1',
    RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: '2',
    ...env,
  };
  const instances: Instance[] = [];
  const cluster: Cluster = {
    redis,
    ors,
    instances,
    async add(name, extra = {}) {
      const instance = await startInstance(name, { ...settings, ...extra });
      instances.push(instance);
      return instance;
    },
    async stop() {
      for (const instance of instances) {
        if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill('SIGKILL');
        await instance.exited;
      }
      await ors.close();
      await redis.stop();
    },
  };
  try {
    // One at a time: the first writes the shared secret that the others read.
    for (let index = 0; index < count; index++) await cluster.add(String.fromCharCode(65 + index));
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}

/** Starting instances one at a time from the sources: three take longer than a hook's default on a busy machine. */
const CLUSTER_START_MS = 60_000;

/**
 * A cluster of `count` instances (with `env`) shared by the tests of the enclosing `describe`: started
 * before them, stopped after them; what it returns stands for the cluster (test/support/use-started.ts).
 */
export function useCluster(count: number, env: Record<string, string> = {}): Cluster {
  return useStarted(
    'the cluster',
    () => startCluster(count, env),
    (cluster) => cluster.stop(),
    CLUSTER_START_MS,
  );
}

const json = { 'Content-Type': 'application/json' };

/** POST /v1/runs on `instance`; returns the answer's status, body and run id. */
export async function postRun(
  instance: Instance,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; runId: string; body: Record<string, unknown> }> {
  const response = await fetch(`${instance.url}/v1/runs`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  return { status: response.status, runId: String(answer.run_id ?? ''), body: answer };
}

/** Reads run `runId`'s events from `instance` after `after` (all with -1), to the end of the stream. */
export async function readEvents(instance: Instance, runId: string, after = -1): Promise<RunEvent[]> {
  const response = await fetch(`${instance.url}/v1/runs/${runId}/events?after=${after}`);
  if (response.status === 204) return [];
  if (response.status !== 200)
    throw new Error(`${instance.name} answered ${response.status}: ${await response.text()}`);
  return runEventsOf(response.body!);
}

/** The snapshot of run `runId` as `instance` answers it. */
export async function snapshotOf(instance: Instance, runId: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${instance.url}/v1/runs/${runId}`)).json()) as Record<string, unknown>;
}

/** POSTs a cancel of `runId` to `instance`. */
export function cancel(instance: Instance, runId: string): Promise<Response> {
  return fetch(`${instance.url}/v1/runs/${runId}/cancel`, { method: 'POST', headers: json, body: '{}' });
}

/** How often to ask an instance over HTTP in `eventually` (test/support/eventually.ts): two cores serve them all. */
export const OVER_HTTP = { intervalMs: 50 } as const;
