import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Authenticator } from '../../src/http/authenticate.js';
import { STREAM_FORMATS } from '../../src/http/formats/stream-formats.js';
import { planRollouts } from '../../src/rollouts/rollout-plan.js';
import { toTrajectoryRecord } from '../../src/rollouts/to-trajectory-record.js';
import { foldEpisode } from '../../src/runs/episode-fold.js';
import { snapshotOf } from '../../src/runs/snapshot-of.js';
import { captureLog } from '../support/captured-log.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { ScriptedOrsServer } from '../support/scripted-ors-server.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';

/**
 * Secrets of a run (docs/protocol.md §2: "forwarded to ORS /create; never logged, echoed or stored in
 * events") are planted and every output is captured and searched: the events in every stream
 * format, the JSON page, snapshots and lists, error answers, the run's record and the trajectory
 * line a rollout would write from it, the bridge's log function, the console, and every request
 * the ORS server received — where the secrets must reach `/create`, and nothing else.
 */

const SECRET = `sk-planted-${randomBytes(12).toString('hex')}`;
const NESTED = `nested-${randomBytes(12).toString('hex')}`;
const PIN = 918_273_645_123;
const SECRETS = { api_token: SECRET, vault: { list: ['harmless', NESTED] }, pin: PIN };
const NEEDLES = [SECRET, NESTED, String(PIN)];

/** Everything written to the console or the process's stdout and stderr while a test runs. */
const consoleOutput: string[] = [];
/** The bridge's whole log, at debug (whole errors, causes included). */
let log = captureLog('debug');

beforeEach(() => {
  consoleOutput.length = 0;
  log = captureLog('debug');
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      consoleOutput.push(args.map(asText).join(' '));
    });
  }
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: never[]) => {
      consoleOutput.push(String(chunk));
      return write(chunk as string, ...rest);
    }) as typeof stream.write);
  }
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A value as text, errors with their stack, details and causes, so a secret anywhere in them shows. */
function asText(value: unknown): string {
  if (value instanceof Error) {
    const extra = value as Error & { details?: unknown; cause?: unknown };
    return `${value.stack ?? value.message} ${JSON.stringify(extra.details) ?? ''} ${extra.cause === undefined ? '' : asText(extra.cause)}`;
  }
  try {
    return typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    return String(value);
  }
}

function expectNoSecret(text: string, where: string): void {
  for (const needle of NEEDLES) expect(text.includes(needle), `${where} holds a secret`).toBe(false);
}

async function startBridge(ors: ScriptedOrsServer): Promise<TestBridge> {
  return startTestBridge(
    {
      ORS_URL: ors.url,
      RUNBRIDGE_DEFAULT_ENV: 'arith',
      RUNBRIDGE_MODEL: 'scripted:submit',
      RUNBRIDGE_API_KEYS: 'key-1-0123456789ab',
    },
    {
      apiKey: 'key-1-0123456789ab',
      providers: [
        scriptedProvider({
          submit: [{ text: 'Submitting.', toolCalls: [{ name: 'submit', arguments: '{"answer":5}' }] }],
        }),
      ],
      logger: log.logger,
    },
  );
}

/** Every output of one finished run: streams in every format, the JSON page, snapshot, list, record and trajectory. */
async function outputsOf(bridge: TestBridge, runId: string): Promise<Record<string, string>> {
  const outputs: Record<string, string> = {};
  for (const format of Object.keys(STREAM_FORMATS)) {
    outputs[`events?format=${format}`] = await (
      await bridge.fetch(`/v1/runs/${runId}/events?format=${format}&agent_events=1`)
    ).text();
  }
  outputs['events page'] = await (
    await bridge.fetch(`/v1/runs/${runId}/events?limit=1000`, { headers: { Accept: 'application/json' } })
  ).text();
  outputs.snapshot = await (await bridge.fetch(`/v1/runs/${runId}`)).text();
  outputs.list = await (await bridge.fetch('/v1/runs?limit=100')).text();
  const run = await bridge.registry.open(
    runId,
    new Authenticator(['key-1-0123456789ab']).authenticate('Bearer key-1-0123456789ab'),
  );
  outputs['run object'] = asText({ record: run.record, snapshot: snapshotOf(run.record, run.log) });
  const record = foldEpisode(run.log.entries);
  outputs['episode record'] = asText(record);
  const [rollout] = planRollouts({ env: run.record.env, split: 'train', indices: [0], samples: 1, masterSeed: 0 });
  outputs['trajectory record'] = asText(
    toTrajectoryRecord(record, {
      rolloutId: 'r0',
      rollout: rollout!,
      attempt: 1,
      split: 'train',
      spec: null,
      sampling: {},
      rewardReduction: 'last',
      timeoutMs: 60_000,
    }),
  );
  return outputs;
}

describe('secrets of a run', () => {
  let ors: ScriptedOrsServer | undefined;
  let bridge: TestBridge | undefined;
  afterEach(async () => {
    await bridge?.shutdown();
    await ors?.close();
    bridge = undefined;
    ors = undefined;
  });

  it("reach the ORS server's /create, and no output of a completed run", async () => {
    ors = await ScriptedOrsServer.start();
    bridge = await startBridge(ors);
    const created = await bridge.fetch('/v1/runs', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'secret-run' },
      body: JSON.stringify({ secrets: SECRETS, metadata: { note: 'no secret here' } }),
    });
    const createdText = await created.text();
    expect(created.status).toBe(202);
    const runId = (JSON.parse(createdText) as { run_id: string }).run_id;
    const events = await bridge.readEvents(runId);
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', reward: 1 });

    // The plant took: /create carried every secret value to the environment.
    const createRequests = ors.requestsTo('/create');
    expect(createRequests).toHaveLength(1);
    expect(createRequests[0]!.body).toMatchObject({ secrets: SECRETS });

    const outputs: Record<string, string> = { 'POST answer': createdText, ...(await outputsOf(bridge, runId)) };
    // A repeat with the same key answers the run, and a conflicting one says why, without the secrets.
    for (const body of [
      { secrets: SECRETS, metadata: { note: 'no secret here' } },
      { secrets: { ...SECRETS, pin: 1 } },
    ]) {
      const again = await bridge.fetch('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'secret-run' },
        body: JSON.stringify(body),
      });
      outputs[`idempotent repeat ${again.status}`] = await again.text();
    }
    for (const [where, text] of Object.entries(outputs)) expectNoSecret(text, where);
    for (const request of ors.requests.filter((request) => request.path !== '/create')) {
      expectNoSecret(asText(request), `ORS request ${request.method} ${request.path}`);
    }
    expectNoSecret(log.text(), 'the bridge log');
    expectNoSecret(consoleOutput.join('\n'), 'the console');
  });

  it('stay out of the error of a run whose /create the ORS server refuses, quoting the request back', async () => {
    ors = await ScriptedOrsServer.start({ rejectCreateWith422: true });
    bridge = await startBridge(ors);
    const runId = await bridge.startRun({ secrets: SECRETS });
    const events = await bridge.readEvents(runId);
    const failed = events.at(-1);
    expect(failed).toMatchObject({ event: 'run.failed', code: 'ors_request_rejected' });
    // The server really echoed them: the bridge's message shows where it cut them out.
    expect(failed?.event === 'run.failed' && failed.error).toContain('[redacted]');
    const outputs = await outputsOf(bridge, runId);
    for (const [where, text] of Object.entries(outputs)) expectNoSecret(text, where);
    expectNoSecret(log.text(), 'the bridge log');
    expectNoSecret(consoleOutput.join('\n'), 'the console');
  });

  it('stay out of the 4xx answer to a request refused for another field', async () => {
    ors = await ScriptedOrsServer.start();
    bridge = await startBridge(ors);
    for (const body of [
      { secrets: SECRETS, max_turns: 0 },
      { secrets: SECRETS, env: 'nosuchenv' },
      { secrets: { ...SECRETS, deep: { a: { b: { c: { d: { e: { f: { g: { h: { i: SECRET } } } } } } } } } } },
      { secrets: SECRETS, task: { split: 'train', index: 999 } },
    ]) {
      const answer = await bridge.fetch('/v1/runs', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expectNoSecret(await answer.text(), `the ${answer.status} answer`);
    }
    expect(ors.requestsTo('/create')).toHaveLength(0);
    expectNoSecret(log.text(), 'the bridge log');
  });
});
