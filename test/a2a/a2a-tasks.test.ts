import { ListTasksRequest, TaskState } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { scriptedProvider } from '../support/scripted-model.js';
import { useTestBridge } from '../support/start-test-bridge.js';
import {
  a2aClient,
  answerOf,
  collect,
  dataPartsOf,
  legacyClient,
  rpc,
  stateOf,
  statesOf,
  taskOf,
  userMessage,
} from './a2a-support.js';

/**
 * runbridge as an A2A agent (docs/a2a.md), driven by the official JS SDK's client as an orchestrator
 * would drive it: found by its card, a task is a run — started by a message, streamed, read, listed,
 * cancelled, answered when it waits on a person — in both protocol versions, each key seeing its own.
 */

const KEY = 'alpha-key-0123456789';
const OTHER_KEY = 'beta-key-0123456789a';
const bridge = useTestBridge(
  { RUNBRIDGE_API_KEYS: `${KEY},${OTHER_KEY}`, RUNBRIDGE_DEFAULT_ENV: 'arith', RUNBRIDGE_MODEL: 'scripted:chat' },
  {
    apiKey: KEY,
    providers: [
      scriptedProvider({ chat: [{ text: 'Hello there.' }, { text: 'Still here.' }], hang: [{ hang: true }] }),
    ],
  },
);
/** An arith episode the offline model plays: calculator steps, then `submit`. */
const ARITH = { env: 'arith', model: 'offline', task: { split: 'test', index: 0 } };

let client: Client;
beforeAll(async () => {
  client = await a2aClient(bridge.url, KEY);
});

describe('the agent card', () => {
  it('is public, names the endpoint, streams, lists a skill per environment and says how to authenticate', async () => {
    const response = await fetch(`${bridge.url}/.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } });
    expect(response.status).toBe(200);
    const card = await response.json();
    expect(card.supportedInterfaces).toEqual([
      { url: `${bridge.url}/v1/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${bridge.url}/v1/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities.streaming).toBe(true);
    expect(card.skills.map((skill: { id: string }) => skill.id)).toEqual(
      expect.arrayContaining(['arith', 'workspace']),
    );
    const arith = card.skills.find((skill: { id: string }) => skill.id === 'arith');
    // What ORS says of the environment: its tools and its splits.
    expect(arith.description).toMatch(/calculator \(.+\).*submit/);
    expect(arith.description).toMatch(/test: \d+ test tasks/);
    expect(arith.tags).toEqual(expect.arrayContaining(['ors', 'environment']));
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(response.headers.get('vary')).toMatch(/A2A-Version/);
  });

  it('has an extended version for a caller with a key, naming the models a run may use', async () => {
    const extended = await client.getAgentCard();
    expect(extended.description).toMatch(/Models a run may name: .*offline/);
    const legacy = await rpc(
      bridge.url,
      { jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' },
      {
        Authorization: `Bearer ${KEY}`,
      },
    );
    expect((await legacy.json()).result).toMatchObject({ protocolVersion: '0.3.0', url: `${bridge.url}/v1/a2a` });
  });

  it('is the v0.3 card, with the v1.0 interfaces beside it, for a caller that sends no version', async () => {
    const card = await (await fetch(`${bridge.url}/.well-known/agent-card.json`)).json();
    expect(card).toMatchObject({
      protocolVersion: '0.3.0',
      url: `${bridge.url}/v1/a2a`,
      preferredTransport: 'JSONRPC',
    });
    expect(card.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(card.supportedInterfaces).toHaveLength(2);
  });
});

describe('a task started by a message', () => {
  it('is a run: a blocking send answers it completed, with the answer, the reward and the stop reason', async () => {
    const task = taskOf(await client.sendMessage(userMessage([{ data: ARITH }])));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    const run = await (await bridge.fetch(`/v1/runs/${task.id}`)).json();
    expect(run.status).toBe('completed');
    expect(answerOf(task)).toBe(run.output);
    expect(task.metadata).toMatchObject({ reward: run.reward, stop_reason: run.stop_reason, env: 'arith' });
    expect(task.contextId).not.toBe('');
    expect(task.history[0]?.parts[0]?.content).toMatchObject({ $case: 'data' });
  });

  it('keeps the caller’s contextId, and honours historyLength', async () => {
    const request = userMessage([{ data: ARITH }], { contextId: 'ctx-kept' });
    const task = taskOf(
      await client.sendMessage({ ...request, configuration: { ...request.configuration!, historyLength: 0 } }),
    );
    expect(task.contextId).toBe('ctx-kept');
    expect(task.history).toEqual([]);
  });

  it('streams: the task first, working, tool progress as data parts, the answer as one artifact, the reward last', async () => {
    const events = await collect(client.sendMessageStream(userMessage([{ data: ARITH }])));
    expect(events[0]?.payload?.$case).toBe('task');
    const states = statesOf(events);
    expect(states[0]).toBe('TASK_STATE_WORKING');
    expect(states.at(-1)).toBe('TASK_STATE_COMPLETED');
    const progress = events.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? dataPartsOf(event.payload.value.status?.message) : [],
    );
    expect(progress).toContainEqual(expect.objectContaining({ type: 'tool.started', tool: 'calculator' }));
    expect(progress).toContainEqual(
      expect.objectContaining({ type: 'tool.completed', tool: 'submit', outcome: 'ok', duration: expect.any(Number) }),
    );
    const chunks = events.flatMap((event) => (event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : []));
    expect(new Set(chunks.map((chunk) => chunk.artifact?.artifactId))).toEqual(new Set(['answer']));
    expect(chunks.at(-1)?.lastChunk).toBe(true);
    const last = events.at(-1)!;
    expect(last.payload?.$case).toBe('statusUpdate');
    const taskId = (events[0]!.payload!.value as { id: string }).id;
    const run = await (await bridge.fetch(`/v1/runs/${taskId}`)).json();
    expect(last.payload?.$case === 'statusUpdate' && last.payload.value.metadata).toMatchObject({ reward: run.reward });
    // The chunks add up to the answer GetTask holds.
    expect(answerOf(await client.getTask({ tenant: '', id: taskId, historyLength: undefined }))).toBe(run.output);
  });

  it('answers at once with returnImmediately, and GetTask follows it to its end', async () => {
    const task = taskOf(await client.sendMessage(userMessage([{ data: ARITH }], { returnImmediately: true })));
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(stateOf(task));
    await eventually(
      async () =>
        stateOf(await client.getTask({ tenant: '', id: task.id, historyLength: undefined })) === 'TASK_STATE_COMPLETED',
      'the task completed',
    );
  });

  it('refuses the data part the runs refuse, with the same field errors, before any task exists', async () => {
    const response = await rpc(
      bridge.url,
      {
        jsonrpc: '2.0',
        id: 7,
        method: 'SendMessage',
        params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ data: { env: 'arith', max_turns: 0 } }] } },
      },
      { Authorization: `Bearer ${KEY}`, 'A2A-Version': '1.0' },
    );
    const answer = await response.json();
    expect(answer).toMatchObject({ id: 7, error: { code: -32602 } });
    expect(answer.error.data[0]).toMatchObject({ reason: 'INVALID_PARAMS', metadata: { code: 'invalid_request' } });
    expect(answer.error.data[1].fieldViolations[0].field).toBe('message.parts.data.max_turns');
  });
});

describe('chat mode', () => {
  it('runs a text message in the default environment, input-required meaning the caller’s turn', async () => {
    const first = taskOf(await client.sendMessage(userMessage([{ text: 'Hi!' }])));
    expect(stateOf(first)).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(answerOf(first)).toBe('Hello there.');
    const run = await (await bridge.fetch(`/v1/runs/${first.id}`)).json();
    expect(run).toMatchObject({ env: 'arith', status: 'awaiting_input' });

    const second = taskOf(
      await client.sendMessage(userMessage([{ text: 'And now?' }], { taskId: first.id, contextId: first.contextId })),
    );
    expect(second.id).toBe(first.id);
    expect(stateOf(second)).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(answerOf(second)).toBe('Still here.');
    const texts = second.history.map((message) =>
      message.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(''),
    );
    // The agent's answer at each turn it waited joins the history.
    expect(texts).toEqual(['Hi!', 'Hello there.', 'And now?', 'Still here.']);

    const cancelled = await client.cancelTask({ tenant: '', id: first.id, metadata: undefined });
    expect(stateOf(cancelled)).toBe('TASK_STATE_CANCELED');
    // A task that has ended takes no message: a new task is a message without taskId.
    await expect(client.sendMessage(userMessage([{ text: 'Hello?' }], { taskId: first.id }))).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });
});

describe('chat mode, streamed', () => {
  it('streams each turn: the task as it stands, working, the new answer, and the caller’s turn again', async () => {
    const first = taskOf(await client.sendMessage(userMessage([{ text: 'Hi!' }])));
    const events = await collect(client.sendMessageStream(userMessage([{ text: 'Once more.' }], { taskId: first.id })));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(statesOf(events)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED']);
    const chunks = events.flatMap((event) => (event.payload?.$case === 'artifactUpdate' ? [event.payload.value] : []));
    // The new turn's answer replaces the last one's.
    expect(chunks[0]?.append).toBe(false);
    const text = chunks.map((chunk) =>
      chunk.artifact?.parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join(''),
    );
    expect(text.join('')).toBe('Still here.');
    await client.cancelTask({ tenant: '', id: first.id, metadata: undefined });
  });
});

describe('a person in the loop', () => {
  const GATED = { ...ARITH, approval: { tools: ['submit'], timeout_seconds: 120 } };

  it('shows a call waiting for approval as input-required, and takes the decision as a message on the task', async () => {
    const events = await collect(client.sendMessageStream(userMessage([{ data: GATED }])));
    // A send's stream ends at the caller's turn.
    expect(statesOf(events).at(-1)).toBe('TASK_STATE_INPUT_REQUIRED');
    const last = events.at(-1)!;
    if (last.payload?.$case !== 'statusUpdate') throw new Error('the stream did not end with a status');
    const [waiting] = dataPartsOf(last.payload.value.status?.message);
    const pending = (waiting as { pending: Array<Record<string, unknown>> }).pending;
    expect(pending).toEqual([
      {
        tool_call_id: expect.any(String),
        tool: 'submit',
        arguments: expect.any(Object),
        expires_at: expect.any(String),
        on_timeout: 'deny',
      },
    ]);
    const taskId = last.payload.value.taskId;

    const decided = taskOf(
      await client.sendMessage(
        userMessage([{ data: { decisions: [{ tool_call_id: pending[0]!.tool_call_id, decision: 'approve' }] } }], {
          taskId,
        }),
      ),
    );
    expect(stateOf(decided)).toBe('TASK_STATE_COMPLETED');
    const run = await (await bridge.fetch(`/v1/runs/${taskId}`)).json();
    expect(run.reward).toBe(1);
  });

  it('shows a decision made over HTTP on a subscriber’s stream: it is one run', async () => {
    const waiting = taskOf(await client.sendMessage(userMessage([{ data: GATED }])));
    expect(stateOf(waiting)).toBe('TASK_STATE_INPUT_REQUIRED');
    const subscription = client.resubscribeTask({ tenant: '', id: waiting.id });
    const first = await subscription.next();
    expect(first.value?.payload?.$case).toBe('task');
    const run = await (await bridge.fetch(`/v1/runs/${waiting.id}`)).json();
    const decision = await bridge.fetch(`/v1/runs/${waiting.id}/approvals/${run.pending_approvals[0].approval_id}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decision.status).toBe(200);
    const rest = await collect(subscription);
    const resolved = rest.flatMap((event) =>
      event.payload?.$case === 'statusUpdate' ? dataPartsOf(event.payload.value.status?.message) : [],
    );
    expect(resolved).toContainEqual(
      expect.objectContaining({ type: 'tool.approval_resolved', tool: 'submit', decision: 'approve', by: 'client' }),
    );
    expect(statesOf(rest).at(-1)).toBe('TASK_STATE_COMPLETED');
  });

  it('takes edit (approve with new arguments) and deny with a reason, as the approvals API does', async () => {
    const gated = { ...ARITH, approval: { tools: ['calculator'], timeout_seconds: 120 } };
    const first = taskOf(await client.sendMessage(userMessage([{ data: gated }])));
    const pendingOf = (task: typeof first) =>
      (dataPartsOf(task.status?.message)[0] as { pending: Array<{ tool_call_id: string }> }).pending;
    await expect(
      client.sendMessage(
        userMessage(
          [{ data: { decisions: [{ tool_call_id: pendingOf(first)[0]!.tool_call_id, decision: 'edit' }] } }],
          {
            taskId: first.id,
          },
        ),
      ),
    ).rejects.toThrow(/carries the new "arguments"/);
    const edited = taskOf(
      await client.sendMessage(
        userMessage(
          [
            {
              data: {
                decisions: [
                  {
                    tool_call_id: pendingOf(first)[0]!.tool_call_id,
                    decision: 'edit',
                    arguments: { expression: '6 * 7' },
                  },
                ],
              },
            },
          ],
          { taskId: first.id },
        ),
      ),
    );
    // The next calculator call waits in its turn.
    expect(stateOf(edited)).toBe('TASK_STATE_INPUT_REQUIRED');
    await client.sendMessage(
      userMessage(
        [
          {
            data: {
              decisions: [{ tool_call_id: pendingOf(edited)[0]!.tool_call_id, decision: 'deny', reason: 'enough' }],
            },
          },
        ],
        { taskId: first.id },
      ),
    );
    await client.cancelTask({ tenant: '', id: first.id, metadata: undefined });
    const events = await bridge.readEvents(first.id);
    const resolved = events.filter((event) => event.event === 'tool.approval_resolved');
    expect(resolved.slice(0, 2)).toMatchObject([
      { decision: 'approve', edited: true, by: 'client' },
      { decision: 'deny', reason: 'enough', by: 'client' },
    ]);
    expect(events.find((event) => event.event === 'tool.started')).toMatchObject({
      arguments: { expression: '6 * 7' },
    });
  });

  it('refuses a decision for a call the task does not wait on', async () => {
    const waiting = taskOf(await client.sendMessage(userMessage([{ data: GATED }])));
    await expect(
      client.sendMessage(
        userMessage([{ data: { decisions: [{ tool_call_id: 'nope', decision: 'approve' }] } }], { taskId: waiting.id }),
      ),
    ).rejects.toThrow(/no tool call "nope"/);
    await client.cancelTask({ tenant: '', id: waiting.id, metadata: undefined });
  });
});

describe('get, list and cancel', () => {
  it('cancels a running task (again: the same answer), and refuses to cancel one that completed', async () => {
    const running = taskOf(
      await client.sendMessage(userMessage([{ data: { model: 'scripted:hang' } }], { returnImmediately: true })),
    );
    expect(stateOf(await client.cancelTask({ tenant: '', id: running.id, metadata: undefined }))).toBe(
      'TASK_STATE_CANCELED',
    );
    expect(stateOf(await client.cancelTask({ tenant: '', id: running.id, metadata: undefined }))).toBe(
      'TASK_STATE_CANCELED',
    );
    const done = taskOf(await client.sendMessage(userMessage([{ data: ARITH }])));
    await expect(client.cancelTask({ tenant: '', id: done.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
  });

  it('lists the key’s tasks newest first, in pages, filtered by context and state', async () => {
    const contextId = `ctx-${crypto.randomUUID()}`;
    const ids: string[] = [];
    for (let index = 0; index < 3; index++) {
      ids.push(taskOf(await client.sendMessage(userMessage([{ data: ARITH }], { contextId }))).id);
    }
    const seen: string[] = [];
    let pageToken = '';
    do {
      const page = await client.listTasks(
        ListTasksRequest.fromJSON({ contextId, pageSize: 2, ...(pageToken ? { pageToken } : {}) }),
      );
      expect(page.totalSize).toBe(3);
      expect(page.tasks.every((task) => task.artifacts.length === 0)).toBe(true);
      seen.push(...page.tasks.map((task) => task.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(seen).toEqual([...ids].reverse());
    const completed = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId, status: 'TASK_STATE_COMPLETED', includeArtifacts: true }),
    );
    expect(completed.tasks).toHaveLength(3);
    expect(answerOf(completed.tasks[0]!)).not.toBe('');
    const none = await client.listTasks(ListTasksRequest.fromJSON({ contextId, status: TaskState.TASK_STATE_FAILED }));
    expect(none).toMatchObject({ tasks: [], totalSize: 0, nextPageToken: '' });
  });

  it('keeps each key to its own tasks: another key’s task is not found, as an unknown one', async () => {
    const mine = taskOf(await client.sendMessage(userMessage([{ data: ARITH }])));
    const other = await a2aClient(bridge.url, OTHER_KEY);
    await expect(other.getTask({ tenant: '', id: mine.id, historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(other.getTask({ tenant: '', id: 'run_unknown', historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(other.cancelTask({ tenant: '', id: mine.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(other.sendMessage(userMessage([{ text: 'mine now' }], { taskId: mine.id }))).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    await expect(collect(other.resubscribeTask({ tenant: '', id: mine.id }))).rejects.toBeInstanceOf(TaskNotFoundError);
    const theirs = await other.listTasks(ListTasksRequest.fromJSON({}));
    expect(theirs.tasks.map((task) => task.id)).not.toContain(mine.id);
  });

  it('refuses to subscribe to a task that has ended', async () => {
    const done = taskOf(await client.sendMessage(userMessage([{ data: ARITH }])));
    await expect(collect(client.resubscribeTask({ tenant: '', id: done.id }))).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });
});

describe('A2A v0.3', () => {
  it('serves the SDK’s v0.3 client: blocking and streaming sends, get and cancel', async () => {
    const legacy = await legacyClient(bridge.url, KEY);
    expect(legacy.protocolVersion).toBe('0.3');
    const task = taskOf(await legacy.sendMessage(userMessage([{ data: ARITH }])));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(answerOf(task)).not.toBe('');
    const events = await collect(legacy.sendMessageStream(userMessage([{ data: ARITH }])));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(statesOf(events).at(-1)).toBe('TASK_STATE_COMPLETED');
    expect(stateOf(await legacy.getTask({ tenant: '', id: task.id, historyLength: undefined }))).toBe(
      'TASK_STATE_COMPLETED',
    );
    // A person in the loop, in v0.3: the decision streamed as a message on the task.
    const gated = taskOf(
      await legacy.sendMessage(userMessage([{ data: { ...ARITH, approval: { tools: ['submit'] } } }])),
    );
    expect(stateOf(gated)).toBe('TASK_STATE_INPUT_REQUIRED');
    const { pending } = dataPartsOf(gated.status?.message)[0] as { pending: Array<{ tool_call_id: string }> };
    const decided = await collect(
      legacy.sendMessageStream(
        userMessage([{ data: { decisions: [{ tool_call_id: pending[0]!.tool_call_id, decision: 'approve' }] } }], {
          taskId: gated.id,
        }),
      ),
    );
    expect(statesOf(decided).at(-1)).toBe('TASK_STATE_COMPLETED');
    await expect(collect(legacy.resubscribeTask({ tenant: '', id: gated.id }))).rejects.toThrow();
    const chat = taskOf(await legacy.sendMessage(userMessage([{ text: 'Hi!' }])));
    expect(stateOf(chat)).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(stateOf(await legacy.cancelTask({ tenant: '', id: chat.id, metadata: undefined }))).toBe(
      'TASK_STATE_CANCELED',
    );
  });

  it('is what a request without A2A-Version speaks: kind-tagged objects, kebab-case states, final on the last status', async () => {
    const response = await rpc(
      bridge.url,
      {
        jsonrpc: '2.0',
        id: 'a',
        method: 'message/send',
        params: { message: { kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'data', data: ARITH }] } },
      },
      { Authorization: `Bearer ${KEY}` },
    );
    const answer = await response.json();
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 'a', result: { kind: 'task', status: { state: 'completed' } } });
    expect(answer.result.artifacts[0].parts[0].kind).toBe('text');
    expect(answer.result.history[0]).toMatchObject({ kind: 'message', role: 'user' });
  });
});
