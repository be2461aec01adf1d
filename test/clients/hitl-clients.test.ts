import { type AgentSubscriber, HttpAgent } from '@ag-ui/client';
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatProvider, decide, echoBothThen, sendMessage, startHitlBridge } from '../hitl/hitl-support.js';
import { scriptedProvider } from '../support/scripted-model.js';
import type { TestBridge } from '../support/start-test-bridge.js';

/**
 * The clients of the stream formats, live, while a person answers (docs/protocol.md §7): AG-UI's
 * own HttpAgent (its schema checks and order verifier included) hears each wait as a run finished
 * with an interrupt and answers it through the bridge's routes; the `ai` package's transport and
 * reader see the call ask for approval and end denied.
 */

/** AG-UI's HttpAgent reading an existing run's stream (GET instead of its POST of a RunAgentInput). */
class RunEventsAgent extends HttpAgent {
  protected override requestInit(): RequestInit {
    return { method: 'GET', headers: { Accept: 'text/event-stream' }, signal: this.abortController.signal };
  }
}

let bridge: TestBridge;

beforeAll(async () => {
  bridge = await startHitlBridge([chatProvider, scriptedProvider({ two: echoBothThen({ text: 'Done.' }) })]);
});
afterAll(() => bridge.shutdown());

describe("AG-UI's HttpAgent on a run with a person in the loop", () => {
  it('answers each interrupt through the routes while it reads, and ends with the episode', async () => {
    const runId = await bridge.startRun({ model: 'scripted:two', approval: { tools: ['echo'] } });
    const agent = new RunEventsAgent({ url: `${bridge.url}/v1/runs/${runId}/events?format=ag-ui` });
    const outcomes: string[] = [];
    const answered = new Set<string>();
    const pending: Array<Promise<unknown>> = [];
    const subscriber: AgentSubscriber = {
      onRunFinishedEvent: (params) => {
        outcomes.push(params.outcome);
        if (params.outcome !== 'interrupt') return;
        for (const interrupt of params.interrupts) {
          if (answered.has(interrupt.id)) continue;
          answered.add(interrupt.id);
          const decision = interrupt.metadata?.arguments?.text === 'beta' ? 'deny' : 'approve';
          pending.push(decide(bridge, runId, interrupt.id, { decision }));
        }
      },
    };
    await agent.runAgent({}, subscriber);
    await Promise.all(pending);
    expect(outcomes).toEqual(['interrupt', 'interrupt', 'interrupt', 'success']);
    expect(agent.pendingInterrupts).toEqual([]);
    const results = agent.messages.filter((message) => message.role === 'tool');
    expect(results.map((message) => [message.toolCallId, message.content.slice(0, 30)])).toEqual([
      ['call_0_1', 'A person reviewing this call d'],
      ['call_0_0', 'alpha'],
    ]);
  });

  it('hears chat mode wait as an interrupt, and the message that answers it as a user message', async () => {
    const runId = await bridge.startRun({ model: 'chat', await_input: true, input_timeout_seconds: 0.5 });
    const agent = new RunEventsAgent({ url: `${bridge.url}/v1/runs/${runId}/events?format=ag-ui` });
    const reasons: string[] = [];
    let sent = false;
    await agent.runAgent(
      {},
      {
        onRunFinishedEvent: (params) => {
          if (params.outcome !== 'interrupt') return;
          reasons.push(...params.interrupts.map((interrupt) => interrupt.reason));
          if (!sent) {
            sent = true;
            void sendMessage(bridge, runId, 'Hello from AG-UI.');
          }
        },
      },
    );
    expect(reasons).toEqual(['input_required', 'input_required']);
    const users = agent.messages.filter((message) => message.role === 'user');
    expect(users.map((message) => message.content)).toEqual(['Hello from AG-UI.']);
    expect(agent.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: expect.stringContaining('Hello from AG-UI.'),
    });
  });
});

describe('the ai package on a run with a person in the loop', () => {
  it('sees the calls ask for approval, then one run and one denied, each chunk checked by its transport', async () => {
    const runId = await bridge.startRun({ model: 'scripted:two', approval: { tools: ['echo'] } });
    const transport = new DefaultChatTransport<UIMessage>({
      api: `${bridge.url}/v1/runs`,
      prepareReconnectToStreamRequest: ({ id }) => ({ api: `${bridge.url}/v1/runs/${id}/events?format=ai-sdk` }),
    });
    const stream = await transport.reconnectToStream({ chatId: runId });
    const errors: string[] = [];
    const states: string[] = [];
    const answered = new Set<string>();
    let message: UIMessage | undefined;
    for await (const state of readUIMessageStream({
      stream: stream!,
      onError: (error) => errors.push(String(error)),
    })) {
      message = state;
      for (const part of state.parts) {
        if (part.type !== 'dynamic-tool') continue;
        states.push(`${part.toolCallId}:${part.state}`);
        if (part.state === 'approval-requested' && !answered.has(part.approval.id)) {
          answered.add(part.approval.id);
          const decision = (part.input as { text: string }).text === 'beta' ? 'deny' : 'approve';
          await decide(bridge, runId, part.approval.id, { decision, ...(decision === 'deny' ? { reason: 'no' } : {}) });
        }
      }
    }
    expect(errors).toEqual([]);
    expect(states).toContain('call_0_0:approval-requested');
    expect(states).toContain('call_0_1:approval-requested');
    const tools = message!.parts.filter((part) => part.type === 'dynamic-tool');
    expect(tools.map((part) => [part.toolCallId, part.state])).toEqual([
      ['call_0_0', 'output-available'],
      ['call_0_1', 'output-denied'],
    ]);
  });
});
