import { z } from 'zod';
import type { ModelPart, ModelProvider, ModelRequest } from '../../src/models/model.js';
import { defineEnvironment, defineTool, type EnvironmentDefinition, taskList } from '../../src/ors/environment.js';
import { singleModelProvider } from '../support/scripted-model.js';

/**
 * An ORS environment and a model made for fault tests. The environment's tools write every start
 * into a ledger, so a test can prove that no tool call ran twice whatever the network did; the
 * model follows a plan the run carries in its `input`, so each run decides its own tool calls.
 */

/** One tool call of a plan: `record` returns at once, `hold` waits until the test releases its id. */
export interface PlannedCall {
  tool: 'record' | 'hold';
  /** Unique per call: the ledger counts starts by it. */
  id: string;
  /** Characters of output `record` returns (big outputs travel in several ORS `chunk` frames). */
  size?: number;
  finished?: boolean;
  /** The model waits for the test to release this gate before it makes the call. */
  waitFor?: string;
}

/** The `input` of a run that makes the ledger model play `calls`, one per turn, then answer "done". */
export function planInput(calls: PlannedCall[]): string {
  return JSON.stringify({ calls });
}

export interface Ledger {
  environment: EnvironmentDefinition<Record<string, never>, Record<string, never>>;
  provider: ModelProvider;
  /** Starts of each tool call, by call id. */
  starts: Map<string, number>;
  /** Resolves once the `hold` call `id` has started, or the model waits on gate `id`. */
  started(id: string): Promise<void>;
  /** Lets the `hold` call `id` return, or the model waiting on gate `id` go on. */
  release(id: string): void;
}

/** The text `record` answers for a call `id` asking for `size` characters. */
export function recordOutput(id: string, size = 0): string {
  const head = `recorded ${id}`;
  return size <= head.length ? head : `${head} ${'x'.repeat(size - head.length - 1)}`;
}

/** A fresh environment named `ledger`, the model provider `ledger`, and their shared ledger. */
export function createLedger(): Ledger {
  const starts = new Map<string, number>();
  const gates = new Map<
    string,
    { started: () => void; startedP: Promise<void>; release: () => void; released: Promise<void> }
  >();
  const gate = (id: string) => {
    let entry = gates.get(id);
    if (!entry) {
      let started!: () => void;
      let release!: () => void;
      const startedP = new Promise<void>((resolve) => (started = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      entry = { started, startedP, release, released };
      gates.set(id, entry);
    }
    return entry;
  };
  const count = (id: string) => starts.set(id, (starts.get(id) ?? 0) + 1);

  const CallInput = z.strictObject({
    id: z.string(),
    size: z.number().int().min(0).optional(),
    finished: z.boolean().optional(),
  });
  const environment = defineEnvironment<Record<string, never>, Record<string, never>>({
    name: 'ledger',
    splits: [{ name: 'train', type: 'train' }],
    tasks: taskList({ train: [{}] }),
    taskSchema: z.strictObject({}),
    tools: [
      defineTool<Record<string, never>, z.infer<typeof CallInput>>({
        name: 'record',
        description: 'Writes the call into the ledger and answers.',
        input: CallInput,
        run: ({ id, size, finished }) => {
          count(id);
          return {
            blocks: [{ type: 'text', text: recordOutput(id, size), detail: null }],
            reward: 1,
            finished: finished ?? false,
          };
        },
      }),
      defineTool<Record<string, never>, z.infer<typeof CallInput>>({
        name: 'hold',
        description: 'Writes the call into the ledger and answers once the test releases it.',
        input: CallInput,
        run: async ({ id, finished }, { signal }) => {
          count(id);
          const entry = gate(id);
          entry.started();
          await Promise.race([
            entry.released,
            new Promise((_, reject) =>
              signal.addEventListener('abort', () => reject(new Error('session closed')), { once: true }),
            ),
          ]);
          return {
            blocks: [{ type: 'text', text: `held ${id}`, detail: null }],
            reward: 1,
            finished: finished ?? false,
          };
        },
      }),
    ],
    setup: () => ({}),
    prompt: () => [{ type: 'text', text: 'Follow the plan.', detail: null }],
  });

  const provider = singleModelProvider('ledger', (request) => playPlan(request, gate));
  return {
    environment,
    provider,
    starts,
    started: (id) => gate(id).startedP,
    release: (id) => gate(id).release(),
  };
}

type Gate = (id: string) => { started: () => void; released: Promise<void> };

async function* playPlan(request: ModelRequest, gate: Gate): AsyncGenerator<ModelPart> {
  request.signal.throwIfAborted();
  const turn = request.messages.filter((message) => message.role === 'assistant').length;
  const users = request.messages.filter((message) => message.role === 'user');
  const last = users.at(-1);
  const text = last?.content.map((part) => (part.type === 'text' ? part.text : '')).join('') ?? '';
  const plan = text.startsWith('{') ? (JSON.parse(text) as { calls: PlannedCall[] }) : { calls: [] };
  const call = plan.calls[turn];
  if (call?.waitFor !== undefined) {
    const entry = gate(call.waitFor);
    entry.started();
    const { signal } = request;
    await Promise.race([
      entry.released,
      new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true })),
    ]);
  }
  if (call) {
    const args = { id: call.id, size: call.size, finished: call.finished };
    yield { type: 'tool-call', call: { id: `call_${turn}`, name: call.tool, arguments: JSON.stringify(args) } };
    yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
    yield { type: 'finish', reason: 'tool_calls' };
    return;
  }
  yield { type: 'text-delta', delta: 'done' };
  yield { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } };
  yield { type: 'finish', reason: 'stop' };
}
