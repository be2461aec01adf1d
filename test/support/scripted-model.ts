import type { Model, ModelPart, ModelProvider, ModelRequest } from '../../src/models/model.js';

/** One scripted model turn: text to stream, tool calls to make (arguments as raw JSON text). */
export interface ScriptedTurn {
  text?: string;
  reasoning?: string;
  toolCalls?: Array<{ name: string; arguments: string }>;
  /** Hold the turn open until the request is aborted (a model that hangs). */
  hang?: boolean;
  /** Hold the turn open until this promise settles (or the request is aborted). */
  gate?: Promise<unknown>;
  /** Throw this instead of answering. */
  error?: Error;
}

/**
 * A model provider for tests that plays fixed scripts: model `scripted:<name>` plays `scripts[name]`,
 * one entry per turn (the turn number is the count of assistant messages so far); past the end it
 * answers "done" without tool calls. Lets a test put a run exactly where it needs it.
 */
export function scriptedProvider(scripts: Record<string, ScriptedTurn[]>): ModelProvider {
  return {
    name: 'scripted',
    listedModels: Object.keys(scripts),
    defaultModel: Object.keys(scripts)[0] ?? 'default',
    create: (name): Model => ({
      id: `scripted:${name}`,
      stream: (request) => play(scripts[name] ?? [], request),
    }),
  };
}

/**
 * A vendor's pause of `ms` before its next chunk, cut short when `signal` aborts: the pace of a slow
 * server a test models (a run that writes all along, calls that overlap), never a wait for the code
 * under test to do something — for that, wait for its event (test/support/eventually.ts).
 */
export function vendorPause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A provider named `name` whose one model (id `name`) streams with `stream`: for a test model no
 * script can express (one that breaks mid-stream, waits on the test, or floods).
 */
export function singleModelProvider(name: string, stream: Model['stream']): ModelProvider {
  return { name, listedModels: [], defaultModel: '', create: () => ({ id: name, stream }) };
}

async function* play(script: ScriptedTurn[], request: ModelRequest): AsyncGenerator<ModelPart> {
  const turn = request.messages.filter((message) => message.role === 'assistant').length;
  const step = script[turn] ?? { text: 'done' };
  if (step.error) throw step.error;
  if (step.hang || step.gate) {
    await new Promise((resolve, reject) => {
      request.signal.throwIfAborted();
      request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true });
      step.gate?.then(resolve, reject);
    });
  }
  if (step.reasoning) {
    yield { type: 'reasoning-delta', delta: step.reasoning };
    yield { type: 'reasoning', block: { text: step.reasoning } };
  }
  for (const word of (step.text ?? '').split(/(?<= )/)) if (word) yield { type: 'text-delta', delta: word };
  for (const [index, call] of (step.toolCalls ?? []).entries()) {
    yield { type: 'tool-call', call: { id: `call_${turn}_${index}`, name: call.name, arguments: call.arguments } };
  }
  yield { type: 'usage', usage: { inputTokens: 10, outputTokens: 5 } };
  yield { type: 'finish', reason: step.toolCalls?.length ? 'tool_calls' : 'stop' };
}
