import { afterAll, describe, expect, it } from 'vitest';
import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import { createOrsServer } from '../../src/ors/server/create-ors-server.js';
import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import { assertEventOrder } from '../../src/protocol/verify-event-order.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';
import { spawnRunbridge } from '../support/spawn-runbridge.js';

/**
 * The real `runbridge serve` process under SIGTERM while its runs wait on people (docs/protocol.md
 * §7): shutdown waits for no one, so both runs — one holding a call for approval, one in chat mode
 * waiting for a message — end at once as `run.cancelled` (`shutdown`), well inside the grace period,
 * the approval resolved `by: "cancel"`, every ORS session deleted, and the process exits 0.
 */

/** Longer than the test may take: a process that exits at all did not wait its grace out. */
const GRACE_SECONDS = 3600;
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Follows a run's whole event stream; `onEvent` sees each event as it comes. */
async function follow(url: string, onEvent: (event: RunEvent) => void): Promise<RunEvent[]> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const log: RunEvent[] = [];
  for await (const frame of readSseEvents(response.body!)) {
    const event = RunEventSchema.parse(JSON.parse(frame.data));
    log.push(event);
    onEvent(event);
  }
  return log;
}

describe('runbridge serve under SIGTERM while runs wait on people', () => {
  it('cancels the waiting runs at once (shutdown), deletes their sessions and exits 0 within the grace period', async () => {
    // The offline model answers an arith "ages" problem (every index ending in 9) in plain text, as it
    // cannot solve it: in chat mode the run then waits for a message.
    const ors = createOrsServer({
      environments: builtinEnvironments,
      logError: () => undefined,
    });
    const orsUrl = await ors.listen();
    cleanups.push(() => ors.close());

    const child = spawnRunbridge(['serve'], {
      env: {
        PATH: process.env.PATH ?? '',
        PORT: '0',
        HOST: '127.0.0.1',
        ORS_URL: orsUrl,
        RUNBRIDGE_SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS),
      },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    cleanups.push(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', () => {
        const match = /runbridge listening on (http:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      void exited.then((code) => reject(new Error(`runbridge serve exited with ${code}:\n${output}`)));
    });

    const start = async (body: Record<string, unknown>) => {
      const response = await fetch(`${url}/v1/runs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(202);
      return ((await response.json()) as { run_id: string }).run_id;
    };
    const approving = await start({ env: 'arith', approval: { tools: '*' } });
    const chatting = await start({ env: 'arith', task: { index: 9 }, await_input: true });
    let waiting = 0;
    let bothWaiting: () => void = () => {};
    const waitingNow = new Promise<void>((resolve) => {
      bothWaiting = resolve;
    });
    const onEvent = (event: RunEvent) => {
      if (event.event === 'tool.approval_required' || event.event === 'run.awaiting_input') waiting++;
      if (waiting === 2) bothWaiting();
    };
    const logs = Promise.all([approving, chatting].map((id) => follow(`${url}/v1/runs/${id}/events`, onEvent)));
    await waitingNow;

    child.kill('SIGTERM');
    const [approvalLog, chatLog] = await logs;
    const code = await exited;

    expect(code, output).toBe(0);
    for (const log of [approvalLog!, chatLog!]) {
      assertEventOrder(log);
      expect(log.at(-1)).toMatchObject({ event: 'run.cancelled', reason: 'shutdown' });
    }
    expect(approvalLog!.at(-2)).toMatchObject({ event: 'tool.approval_resolved', decision: 'deny', by: 'cancel' });
    expect(approvalLog!.some((event) => event.event === 'tool.started')).toBe(false);
    expect(chatLog!.at(-2)).toMatchObject({ event: 'run.awaiting_input' });
    expect(ors.activeSessionIds()).toEqual([]);
  }, 60_000);
});
