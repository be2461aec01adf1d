import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOrsServer } from '../../src/ors/server/create-ors-server.js';
import type { RunEvent } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { runEventsOf } from '../support/run-events-of.js';
import { spawnRunbridge } from '../support/spawn-runbridge.js';

/**
 * The real `runbridge serve` process under SIGTERM (docs/protocol.md §6, "Shutdown"), with 100 runs in
 * flight, each with a subscriber: every subscriber gets its terminal event, every ORS session is
 * deleted (the ORS server runs in this process, so the test sees every request), and the process
 * exits by itself once the grace period is over.
 */

const RUNS = 100;
const GRACE_SECONDS = 3;

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/**
 * The built-in ORS server behind a front that records which sessions were created and deleted, and
 * holds tool calls: `arith` calls forever (those runs can only end by the grace period's cancel),
 * `workspace` calls until `release()` (those runs may finish within the grace period).
 */
async function startRecordedOrsServer() {
  const ors = createOrsServer({ environments: builtinEnvironments, logError: () => undefined });
  const sessions = new Map<string, { created: boolean; deleted: boolean; sessionDeleted: boolean }>();
  const held: Array<() => void> = [];
  let heldCount = 0;
  let released = false;
  let onHeld = () => {};
  const server = http.createServer((req, res) => {
    const sid = req.headers['x-session-id'];
    if (typeof sid === 'string') {
      const entry = sessions.get(sid) ?? { created: false, deleted: false, sessionDeleted: false };
      if (req.url === '/create') entry.created = true;
      if (req.url === '/delete') entry.deleted = true;
      if (req.url === '/delete_session') entry.sessionDeleted = true;
      sessions.set(sid, entry);
    }
    const forever = req.url === '/arith/call';
    if (forever || (req.url === '/workspace/call' && !released)) {
      heldCount++;
      onHeld();
      if (!forever) held.push(() => ors.handler(req, res));
      return;
    }
    ors.handler(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    await ors.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ors,
    sessions,
    /** Resolves once `count` tool calls are being held. */
    held: (count: number) =>
      new Promise<void>((resolve) => {
        onHeld = () => heldCount >= count && resolve();
        onHeld();
      }),
    /** Lets every held and future `workspace` call through. */
    release: () => {
      released = true;
      for (const forward of held.splice(0)) forward();
    },
  };
}

/** Starts `runbridge serve` and resolves with its URL once it prints that it listens. */
async function startServe(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; output: () => string; exited: Promise<number | null> }> {
  const child = spawnRunbridge(['serve'], { env: { PATH: process.env.PATH ?? '', ...env } });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /runbridge listening on (http:\/\/\S+)/.exec(output);
      if (match) resolve(match[1]!);
    };
    child.stdout!.on('data', look);
    void exited.then((code) => reject(new Error(`runbridge serve exited with ${code} before listening:\n${output}`)));
  });
  return { child, url, output: () => output, exited };
}

/** Opens a subscriber; `connected` resolves once the stream has started, `events` with its whole log. */
function subscribe(url: string): { connected: Promise<void>; events: Promise<RunEvent[]> } {
  const response = fetch(url);
  const events = (async () => {
    const answer = await response;
    expect(answer.status).toBe(200);
    return runEventsOf(answer.body!);
  })();
  return { connected: response.then(() => undefined), events };
}

describe('runbridge serve under SIGTERM', () => {
  it(`drains ${RUNS} runs in flight: every subscriber gets a terminal event, every session is deleted, the process exits by itself`, async () => {
    const ors = await startRecordedOrsServer();
    const serve = await startServe({
      PORT: '0',
      HOST: '127.0.0.1',
      ORS_URL: ors.url,
      RUNBRIDGE_MAX_CONCURRENT_RUNS: String(RUNS),
      RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
    });

    const runIds: string[] = [];
    for (let index = 0; index < RUNS; index++) {
      const response = await fetch(`${serve.url}/v1/runs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ env: index % 4 === 0 ? 'arith' : 'workspace', task: { split: 'train', index } }),
      });
      expect(response.status).toBe(202);
      runIds.push(((await response.json()) as { run_id: string }).run_id);
    }
    const subscribers = runIds.map((id) => subscribe(`${serve.url}/v1/runs/${id}/events`));
    await Promise.all(subscribers.map((subscriber) => subscriber.connected));
    // Every run is now inside its first tool call: all 100 are in flight when the signal comes.
    await ors.held(RUNS);

    const signalled = Date.now();
    serve.child.kill('SIGTERM');
    ors.release();
    const logs = await Promise.all(subscribers.map((subscriber) => subscriber.events));
    const code = await serve.exited;
    const tookMs = Date.now() - signalled;

    expect(code, serve.output()).toBe(0);
    expect(serve.output()).toContain(`SIGTERM: draining (up to ${GRACE_SECONDS}s`);
    expect(serve.output()).toContain('runbridge stopped');
    const endings = new Map<string, number>();
    logs.forEach((log, index) => {
      assertEventOrder(log);
      const terminal = log.at(-1)!;
      const ending = terminal.event === 'run.cancelled' ? `${terminal.event}:${terminal.reason}` : terminal.event;
      endings.set(ending, (endings.get(ending) ?? 0) + 1);
      if (index % 4 === 0) {
        // arith: its call never returns, so only the end of the grace period ends the run.
        expect(ending).toBe('run.cancelled:shutdown');
        expect(log.at(-2)).toMatchObject({ event: 'tool.completed', error: true });
      } else {
        expect(['run.completed', 'run.cancelled:shutdown']).toContain(ending);
      }
    });

    const opened = [...ors.sessions.values()].filter((session) => session.created);
    expect(opened).toHaveLength(RUNS);
    expect(opened.every((session) => session.deleted && session.sessionDeleted)).toBe(true);
    expect(ors.ors.activeSessionIds()).toEqual([]);
    console.info(
      `SIGTERM: ${RUNS} runs ${JSON.stringify(Object.fromEntries(endings))}, ${opened.length} sessions all deleted, exit after ${tookMs} ms (grace ${GRACE_SECONDS} s)`,
    );
  }, 120_000);
});
