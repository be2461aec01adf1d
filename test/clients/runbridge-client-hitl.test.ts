import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnyRunEvent,
  ConflictError,
  createClient,
  InvalidRequestError,
  isKnownRunEvent,
  NotFoundError,
  type RunbridgeClient,
  type RunEvent,
} from '../../src/client/index.js';
import { chatProvider, echoBothThen, startHitlBridge } from '../hitl/hitl-support.js';
import { scriptedProvider } from '../support/scripted-model.js';
import type { TestBridge } from '../support/start-test-bridge.js';

/**
 * `runbridge/client` with a person in the loop (docs/client.md): `approve` (with edits), `deny` and
 * `sendMessage` against a real bridge with keys, the new events typed, and the errors of the routes.
 */

let bridge: TestBridge;
let client: RunbridgeClient;
let other: RunbridgeClient;

beforeAll(async () => {
  bridge = await startHitlBridge([chatProvider, scriptedProvider({ two: echoBothThen({ text: 'Done.' }) })], {
    env: { RUNBRIDGE_API_KEYS: 'key-a-0123456789ab,key-b-0123456789ab' },
    apiKey: 'key-a-0123456789ab',
  });
  client = createClient({ baseUrl: bridge.url, apiKey: 'key-a-0123456789ab' });
  other = createClient({ baseUrl: bridge.url, apiKey: 'key-b-0123456789ab' });
});
afterAll(() => bridge.shutdown());

/** Reads the run's events until `count` of type `type` have come, then leaves the stream. */
async function until<T extends RunEvent['event']>(runId: string, type: T, count = 1) {
  const found: Array<Extract<RunEvent, { event: T }>> = [];
  for await (const event of client.runs.events(runId)) {
    if (isKnownRunEvent(event) && event.event === type) found.push(event as Extract<RunEvent, { event: T }>);
    if (found.length === count) break;
  }
  return found;
}

async function all(runId: string): Promise<AnyRunEvent[]> {
  const events: AnyRunEvent[] = [];
  for await (const event of client.runs.events(runId)) events.push(event);
  return events;
}

describe('the runbridge client with a person in the loop', () => {
  it('approves with edits and denies with a reason, each answered with the run’s resolution', async () => {
    const { run_id: runId } = await client.runs.create({ model: 'scripted:two', approval: { tools: ['echo'] } });
    const [alpha, beta] = await until(runId, 'tool.approval_required', 2);
    const snapshot = await client.runs.get(runId);
    expect(snapshot.status).toBe('requires_action');
    expect(snapshot.pending_approvals.map((entry) => entry.approval_id)).toEqual([
      alpha!.approval_id,
      beta!.approval_id,
    ]);

    await expect(other.runs.deny(runId, beta!.approval_id)).rejects.toBeInstanceOf(NotFoundError);
    const denied = await client.runs.deny(runId, beta!.approval_id, { reason: 'not beta' });
    expect(denied).toMatchObject({ event: 'tool.approval_resolved', decision: 'deny', reason: 'not beta' });
    await expect(client.runs.approve(runId, beta!.approval_id)).rejects.toMatchObject({
      constructor: ConflictError,
      code: 'approval_resolved',
    });
    await expect(client.runs.approve(runId, 'appr_none')).rejects.toMatchObject({
      constructor: NotFoundError,
      code: 'approval_not_found',
    });
    await expect(
      client.runs.approve(runId, alpha!.approval_id, { arguments: [1] as unknown as Record<string, unknown> }),
    ).rejects.toBeInstanceOf(InvalidRequestError);
    const approved = await client.runs.approve(runId, alpha!.approval_id, { arguments: { text: 'ALPHA' } });
    expect(approved).toMatchObject({ decision: 'approve', edited: true, arguments: { text: 'ALPHA' } });

    const events = await all(runId);
    const started = events.find((event) => event.event === 'tool.started');
    expect(started).toMatchObject({ arguments: { text: 'ALPHA' } });
    expect(events.every(isKnownRunEvent)).toBe(true);
  });

  it('sends a message into a chat, read by the model, and is refused once the run has ended', async () => {
    const { run_id: runId } = await client.runs.create({
      model: 'chat',
      await_input: true,
      input_timeout_seconds: 0.3,
    });
    await until(runId, 'run.awaiting_input');
    expect((await client.runs.get(runId)).status).toBe('awaiting_input');
    const { message_id: messageId } = await client.runs.sendMessage(runId, [{ type: 'text', text: 'Hi there.' }]);
    expect(messageId).toMatch(/^msg_/);
    await expect(other.runs.sendMessage(runId, 'hi')).rejects.toBeInstanceOf(NotFoundError);

    const events = await all(runId);
    expect(events.find((event) => event.event === 'message.received')).toMatchObject({
      message_id: messageId,
      content: [{ type: 'text', text: 'Hi there.' }],
      turn: 2,
    });
    expect(events.at(-1)).toMatchObject({ event: 'run.completed', stop_reason: 'no_tool_calls' });
    const answer = events.flatMap((event) =>
      isKnownRunEvent(event) && event.event === 'message.delta' && event.turn === 2 ? [event.delta] : [],
    );
    expect(answer.join('')).toContain('You said: Hi there.');
    await expect(client.runs.sendMessage(runId, 'too late')).rejects.toMatchObject({
      constructor: ConflictError,
      code: 'run_ended',
    });
  });
});
