import type { ToolCall } from '../../src/models/conversation.js';
import type { Model, ModelPart, ModelProvider } from '../../src/models/model.js';

/**
 * An in-process model whose run is a short, realistic one in the bench environment: two turns,
 * each a few dozen text deltas of a few words and one tool call streamed in pieces — `step` on the
 * first turn, `submit 42` on the second, which finishes the episode. Its log (run.started,
 * prompt.available, the deltas, the calls' pieces, two turns and two tool calls, run.completed) is
 * what a new subscriber of a finished chat run reads. It lives in the bridge's process for the same
 * reason as the burst model: benchmark 1 measures the event log and its subscribers, not an adapter.
 */
export interface ShortRunModel {
  readonly provider: ModelProvider;
  /** The model id to ask for in a run request. */
  readonly id: string;
}

/** The provider name; the model is `bench-short:run`. */
export const SHORT_RUN_PROVIDER = 'bench-short';

/** Phrases the deltas cycle through, like the chunks of a streamed answer. */
const PHRASES = [
  'The answer comes from several small',
  ' steps, each of which is checked',
  ' against the task before the next one',
  ' is taken; nothing is assumed that',
  ' the environment has not confirmed so far.',
];

/** A short-run model yielding `deltasPerTurn` text deltas on each of its two turns. */
export function createShortRunModel(deltasPerTurn: number): ShortRunModel {
  const id = `${SHORT_RUN_PROVIDER}:run`;
  const model: Model = {
    id,
    async *stream(request): AsyncGenerator<ModelPart> {
      const turn = request.messages.filter((message) => message.role === 'assistant').length + 1;
      for (let i = 0; i < deltasPerTurn; i++) yield { type: 'text-delta', delta: PHRASES[i % PHRASES.length]! };
      const call: ToolCall =
        turn === 1
          ? { id: `call_${turn}`, name: 'step', arguments: '{"n": 1}' }
          : { id: `call_${turn}`, name: 'submit', arguments: '{"answer": 42}' };
      const [head, tail] = [call.arguments.slice(0, 6), call.arguments.slice(6)];
      for (const delta of ['', head, tail]) yield { type: 'tool-call-delta', id: call.id, name: call.name, delta };
      yield { type: 'tool-call', call };
      yield { type: 'usage', usage: { inputTokens: 40 * turn, outputTokens: deltasPerTurn * 6 } };
      yield { type: 'finish', reason: 'tool_calls' };
    },
  };
  return {
    id,
    provider: { name: SHORT_RUN_PROVIDER, listedModels: ['run'], defaultModel: 'run', create: () => model },
  };
}
