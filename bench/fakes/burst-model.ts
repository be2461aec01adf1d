import type { Model, ModelPart, ModelProvider } from '../../src/models/model.js';
import { deferred } from '../../test/support/test-environment.js';

/**
 * An in-process model for the fan-out benchmark: each stream waits at a gate the benchmark opens,
 * then yields a prepared list of text deltas with a macrotask pause after every `burst` of them —
 * the way tokens arrive from a network socket a few at a time — and finishes without tool calls.
 * It lives in the bridge's process on purpose: the fan-out benchmark measures the event log and
 * its subscribers, and a model behind HTTP would add the adapter's cost (benchmark 6 measures that).
 */
export interface BurstModel {
  readonly provider: ModelProvider;
  /** Closes the gate for the next stream; call before starting the run. */
  arm(): void;
  /** Resolves once a stream is waiting at the gate (its run's ORS session is open). */
  waiting(): Promise<void>;
  /** Opens the gate: the waiting stream starts yielding. */
  release(): void;
}

/** The provider name; models are `bench:burst`. */
export const BURST_PROVIDER = 'bench';

/**
 * The events of a run of the burst model with `deltaCount` deltas: run.started, prompt.available, one
 * message.delta per delta, turn.completed, run.completed. The fan-out and Redis benchmarks each counted
 * them on their own, and each failed every run once prompt.available came in.
 */
export function burstRunEvents(deltaCount: number): number {
  return deltaCount + 4;
}

/** A burst model yielding `deltas`, pausing (`setImmediate`) after every `burst` of them. */
export function createBurstModel(deltas: readonly string[], burst: number): BurstModel {
  let gate = deferred();
  let arrived = deferred();
  const model: Model = {
    id: `${BURST_PROVIDER}:burst`,
    async *stream(request): AsyncGenerator<ModelPart> {
      arrived.resolve();
      await gate.promise;
      request.signal.throwIfAborted();
      for (let i = 0; i < deltas.length; i++) {
        yield { type: 'text-delta', delta: deltas[i]! };
        if ((i + 1) % burst === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      yield { type: 'usage', usage: { inputTokens: 20, outputTokens: deltas.length } };
      yield { type: 'finish', reason: 'stop' };
    },
  };
  return {
    provider: { name: BURST_PROVIDER, listedModels: ['burst'], defaultModel: 'burst', create: () => model },
    arm() {
      gate = deferred();
      arrived = deferred();
    },
    waiting: () => arrived.promise,
    release: () => gate.resolve(),
  };
}
