import { builtinEnvironments } from '../../adapters/environments/builtin-environments.js';
import type { Message } from '../../src/models/conversation.js';
import type { ModelProvider } from '../../src/models/model.js';
import { type RunEvent, RunEventSchema } from '../../src/protocol/run-events.js';
import type { RunSnapshot } from '../../src/protocol/run-snapshot.js';
import { readSseEvents } from '../../src/sse/read-sse-events.js';
import { type ScriptedTurn, scriptedProvider, singleModelProvider } from '../support/scripted-model.js';
import { startTestBridge, type TestBridge } from '../support/start-test-bridge.js';
import { createTestEnvironment } from '../support/test-environment.js';

/**
 * What the tests of a person in the loop share: a model that records what it was sent, a model that
 * chats back, and helpers to wait for an event and to post decisions and messages as a client does.
 */

/**
 * Starts a bridge whose default environment is `hitl` — a test environment
 * (test/support/test-environment.ts), `hitl` when given (to reach its probe), beside the built-ins —
 * with `providers`; `env` and the other options go to {@link startTestBridge}.
 */
export function startHitlBridge(
  providers: ModelProvider[],
  {
    env = {},
    hitl = createTestEnvironment('hitl').environment,
    ...options
  }: { env?: Record<string, string>; hitl?: ReturnType<typeof createTestEnvironment>['environment'] } & Omit<
    NonNullable<Parameters<typeof startTestBridge>[1]>,
    'environments' | 'providers'
  > = {},
): Promise<TestBridge> {
  return startTestBridge(
    { RUNBRIDGE_DEFAULT_ENV: 'hitl', ...env },
    { ...options, environments: [...builtinEnvironments, hitl], providers },
  );
}

/** A call of the test environment's `echo` tool, which answers `text` (and takes `reward`, `finished`). */
export const echo = (text: string, extra: Record<string, unknown> = {}) => ({
  name: 'echo',
  arguments: JSON.stringify({ text, ...extra }),
});

/** A model's turns: two `echo` calls at once (alpha and beta), so a test has two calls to decide, then `last`. */
export const echoBothThen = (last: ScriptedTurn): ScriptedTurn[] => [
  { text: 'Checking both. ', toolCalls: [echo('alpha'), echo('beta')] },
  last,
];

/** The conversations a model was sent, one per model call, newest last. */
export type Sent = Message[][];

/** `scriptedProvider(scripts)` whose models also record every conversation they are sent into `sent`. */
export function recordingProvider(scripts: Record<string, ScriptedTurn[]>, sent: Sent): ModelProvider {
  const inner = scriptedProvider(scripts);
  return {
    ...inner,
    create: (name) => {
      const model = inner.create(name);
      return {
        id: model.id,
        stream: (request) => {
          sent.push(request.messages.map((message) => structuredClone(message)));
          return model.stream(request);
        },
      };
    },
  };
}

/** The text of a message of the conversation (tool and user content joined; assistant text as is). */
export function textOf(message: Message): string {
  if (message.role === 'system' || message.role === 'assistant') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : `[image]`)).join('\n');
}

/**
 * Model `chat`: answers every turn in text only, quoting the last user message it was sent — so a
 * test sees which message the model read — and counting the user messages it has seen.
 */
export const chatProvider: ModelProvider = singleModelProvider('chat', async function* (request) {
  const users = request.messages.filter((message) => message.role === 'user');
  const last = users.at(-1);
  yield { type: 'text-delta', delta: `You said: ${last ? textOf(last) : '(nothing)'} [${users.length} user messages]` };
  yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } };
  yield { type: 'finish', reason: 'stop' };
});

const JSON_HEADERS = { 'Content-Type': 'application/json' };

/** POSTs `body` as JSON and returns the status and the parsed answer. */
export async function postJson(
  bridge: TestBridge,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await bridge.fetch(path, {
    method: 'POST',
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Decides approval `approvalId` of run `runId`. */
export function decide(
  bridge: TestBridge,
  runId: string,
  approvalId: string,
  body: Record<string, unknown>,
  headers?: Record<string, string>,
) {
  return postJson(bridge, `/v1/runs/${runId}/approvals/${approvalId}`, body, headers);
}

/** Sends a message into run `runId`. */
export function sendMessage(bridge: TestBridge, runId: string, content: unknown, headers?: Record<string, string>) {
  return postJson(bridge, `/v1/runs/${runId}/messages`, { content }, headers);
}

/** The run's snapshot. */
export async function snapshotOf(bridge: TestBridge, runId: string): Promise<RunSnapshot> {
  return (await (await bridge.fetch(`/v1/runs/${runId}`)).json()) as RunSnapshot;
}

/**
 * Follows the run's events until `count` of them match `matches`, and returns those (then closes the
 * stream); fails after `timeoutMs`.
 */
export async function eventsMatching<E extends RunEvent = RunEvent>(
  bridge: TestBridge,
  runId: string,
  matches: (event: RunEvent) => event is E,
  count = 1,
  timeoutMs = 10_000,
): Promise<E[]> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new Error(`no ${count} matching events within ${timeoutMs} ms`)),
    timeoutMs,
  );
  const found: E[] = [];
  try {
    const response = await bridge.fetch(`/v1/runs/${runId}/events`, { signal: controller.signal });
    if (!response.body) throw new Error(`events answered ${response.status}`);
    for await (const frame of readSseEvents(response.body)) {
      const event = RunEventSchema.parse(JSON.parse(frame.data));
      if (matches(event)) found.push(event);
      if (found.length >= count) return found;
    }
    throw new Error(`the run ended with ${found.length} of ${count} matching events`);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** A predicate for events of type `type`. */
export function ofType<T extends RunEvent['event']>(type: T) {
  return (event: RunEvent): event is Extract<RunEvent, { event: T }> => event.event === type;
}
