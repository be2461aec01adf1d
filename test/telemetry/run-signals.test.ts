import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/errors.js';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { chatProvider, decide, eventsMatching, ofType, sendMessage, snapshotOf } from '../hitl/hitl-support.js';
import { type CapturedLog, captureLog } from '../support/captured-log.js';
import { eventually } from '../support/eventually.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.js';
import { readScrape, type Scrape } from '../support/read-scrape.js';
import { postRollout, readRecords } from '../support/rollout-client.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment } from '../support/test-environment.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The three signals (docs/operations.md) of what goes wrong or waits in a run: tool calls that fail
 * (the ORS server's error, the tool's own, arguments that are not JSON), a model that fails, a person
 * deciding a held call and answering chat mode, webhooks delivered and given up on, and a run made
 * through `POST /v1/chat/completions` by a traced caller. One traced bridge plays them all; the test
 * then reads its log, its `/metrics` and the spans a loopback OTLP/HTTP receiver got.
 */

const CALLER_TRACE = '0af7651916cd43dd8448eb211c80319c';
const CALLER_SPAN = 'b7ad6b7169203331';
const BATCH_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const BATCH_SPAN = '00f067aa0ba902b7';
const STATUS_ERROR = 2;
const json = { 'Content-Type': 'application/json' };

describe('a traced bridge whose runs fail, wait on a person and call webhooks', () => {
  const { environment } = createTestEnvironment();
  let log: CapturedLog;
  let receiver: OtlpReceiver;
  let refusing: WebhookReceiver;
  let accepting: WebhookReceiver;
  let bridge: TestBridge;
  let failingTools: RunSnapshot;
  let failingModel: RunSnapshot;
  let approved: RunSnapshot;
  let chat: RunSnapshot;
  let completionRun: string;
  let batchRuns: string[];
  let whileHeld: Scrape;
  let after: Scrape;
  let spans: ReceivedSpan[];

  beforeAll(async () => {
    log = captureLog('info');
    receiver = await startOtlpReceiver();
    refusing = await startWebhookReceiver(() => 500);
    accepting = await startWebhookReceiver(() => 204);
    bridge = await startTestBridge(
      {
        RUNBRIDGE_DEFAULT_ENV: 'testenv',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        RUNBRIDGE_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
        RUNBRIDGE_WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
        RUNBRIDGE_WEBHOOK_MAX_ATTEMPTS: '2',
        RUNBRIDGE_WEBHOOK_RETRY_SECONDS: '0.01',
        RUNBRIDGE_WEBHOOK_POLL_SECONDS: '0.02',
      },
      {
        logger: log.logger,
        environments: [environment],
        providers: [
          chatProvider,
          scriptedProvider({
            failing: [
              {
                toolCalls: [
                  { name: 'crash', arguments: '{}' },
                  { name: 'refuse', arguments: '{}' },
                  { name: 'echo', arguments: '{not json' },
                ],
              },
            ],
            down: [{ error: new ModelError('The provider is down.', { code: 'model_unavailable' }) }],
            held: [{ toolCalls: [{ name: 'echo', arguments: '{"text":"hi"}' }] }],
          }),
        ],
      },
    );

    const failingId = await bridge.startRun({
      model: 'scripted:failing',
      webhook: { url: `${refusing.url}/hook`, events: ['run.completed'] },
    });
    await bridge.readEvents(failingId);
    failingTools = await snapshotOf(bridge, failingId);
    const downId = await bridge.startRun({
      model: 'scripted:down',
      webhook: { url: `${accepting.url}/hook`, events: ['run.failed'] },
    });
    await bridge.readEvents(downId);
    failingModel = await snapshotOf(bridge, downId);

    const heldId = await bridge.startRun({ model: 'scripted:held', approval: { tools: ['echo'] } });
    const [required] = await eventsMatching(bridge, heldId, ofType('tool.approval_required'));
    whileHeld = readScrape(await (await bridge.fetch('/metrics')).text());
    await decide(bridge, heldId, required!.approval_id, { decision: 'approve' });
    await bridge.readEvents(heldId);
    approved = await snapshotOf(bridge, heldId);

    const chatId = await bridge.startRun({ model: 'chat', await_input: true });
    await eventsMatching(bridge, chatId, ofType('run.awaiting_input'));
    await sendMessage(bridge, chatId, 'Thanks, that is all.');
    await eventsMatching(bridge, chatId, ofType('run.awaiting_input'), 2);
    await bridge.fetch(`/v1/runs/${chatId}/cancel`, { method: 'POST', headers: json, body: '{}' });
    chat = await snapshotOf(bridge, chatId);

    const completion = await bridge.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { ...json, traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01` },
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'Hello.' }] }),
    });
    expect(completion.status).toBe(200);
    completionRun = completion.headers.get('x-run-id')!;

    const batch = await postRollout(
      bridge.fetch,
      { env: 'testenv', split: 'train', tasks: '0:2', samples: 1, model: 'chat' },
      { traceparent: `00-${BATCH_TRACE}-${BATCH_SPAN}-01` },
    );
    expect(batch.status).toBe(202);
    batchRuns = (await readRecords(bridge.fetch, batch.answer.rollout_id as string)).map((record) => record.rollout_id);

    // The receivers see a delivery before the bridge reads their answer: the counters follow.
    after = await eventually(async () => {
      const scrape = readScrape(await (await bridge.fetch('/metrics')).text());
      const outcome = (name: string) => scrape.value('runbridge_webhook_deliveries_total', { outcome: name });
      return outcome('failed') === 1 && outcome('delivered') === 1 && scrape;
    }, 'the webhook deliveries counted');
    await bridge.shutdown(); // sends the spans still buffered
    spans = receiver.spans;
  });

  afterAll(async () => {
    await bridge.shutdown();
    await accepting.close();
    await refusing.close();
    await receiver.close();
  });

  const spansOf = (run: RunSnapshot | string) => {
    const runId = typeof run === 'string' ? run : run.run_id;
    const agent = spans.find(
      (span) => span.name.startsWith('invoke_agent') && span.attributes['gen_ai.conversation.id'] === runId,
    );
    expect(agent).toBeDefined();
    return { agent: agent!, children: spans.filter((span) => span.parentSpanId === agent!.spanId) };
  };

  it('marks each failed tool call as an error, with what failed as error.type', () => {
    const { children } = spansOf(failingTools);
    const tools = children.filter((span) => span.name.startsWith('execute_tool'));
    expect(tools.map((span) => [span.name, span.status, span.attributes['error.type']])).toEqual([
      ['execute_tool crash', STATUS_ERROR, 'ors_server_error'],
      ['execute_tool refuse', STATUS_ERROR, 'tool_error'],
      ['execute_tool echo', STATUS_ERROR, 'invalid_arguments'],
    ]);
  });

  it("counts and logs the ORS server's failure with its code; a tool's own failure is not the server's", () => {
    expect(after.value('runbridge_ors_errors_total', { code: 'ors_server_error' })).toBe(1);
    expect(after.families.find((family) => family.name === 'runbridge_ors_errors_total')?.metrics).toHaveLength(1);
    expect(log.lines()).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        msg: 'tool call crash failed',
        code: 'ors_server_error',
        run_id: failingTools.run_id,
        trace_id: failingTools.trace_id,
      }),
    );
  });

  it("logs a model's failure with its code, and the run's end with it", () => {
    const lines = log.lines().filter((line) => line.run_id === failingModel.run_id);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'model call failed', code: 'model_unavailable', turn: 1 }),
    );
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'run ended', status: 'failed', code: 'model_unavailable' }),
    );
  });

  it('counts the calls waiting for a decision, and spans the wait', () => {
    expect(whileHeld.value('runbridge_approvals_pending')).toBe(1);
    expect(after.value('runbridge_approvals_pending')).toBe(0);
    expect(approved.status).toBe('completed');
    const { children } = spansOf(approved);
    expect(children.map((span) => span.name)).toEqual(expect.arrayContaining(['await_approval', 'execute_tool echo']));
  });

  it('spans each wait of chat mode for a message', () => {
    expect(chat.status).toBe('cancelled');
    const waits = spansOf(chat).children.filter((span) => span.name === 'await_input');
    expect(waits).toHaveLength(2);
    expect(waits[0]?.status).not.toBe(STATUS_ERROR);
  });

  it('counts webhook deliveries by outcome: delivered, retried, and given up after the last attempt', () => {
    expect(after.value('runbridge_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(after.value('runbridge_webhook_deliveries_total', { outcome: 'retry' })).toBe(1);
    expect(after.value('runbridge_webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
  });

  it("puts the runs of a batch posted to POST /v1/rollouts in the caller's trace, and counts its records", () => {
    expect(batchRuns).toHaveLength(2);
    for (const runId of batchRuns) {
      const { agent } = spansOf(runId);
      expect(agent.traceId).toBe(BATCH_TRACE);
      const request = spans.find((span) => span.spanId === agent.parentSpanId);
      expect(request).toMatchObject({ name: 'POST /v1/rollouts', parentSpanId: BATCH_SPAN });
    }
    expect(after.value('runbridge_rollout_records_total', { status: 'completed' })).toBe(2);
  });

  it("puts a run made through POST /v1/chat/completions in the caller's trace", async () => {
    const { agent } = spansOf(completionRun);
    expect(agent.traceId).toBe(CALLER_TRACE);
    const request = spans.find((span) => span.spanId === agent.parentSpanId);
    expect(request).toMatchObject({ name: 'POST /v1/chat/completions', parentSpanId: CALLER_SPAN });
  });
});
