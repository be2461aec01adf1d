import type { ModelPart, ModelProvider } from '../../../src/models/model.js';
import { singleModelProvider } from '../../support/scripted-model.js';

/** A model the test plays part by part, to stop the page at exactly the moment it looks at. */
export interface DrivenModel {
  /** Provider of the one model, whose id is the name given to {@link drivenModel}. */
  provider: ModelProvider;
  /** Hands the model these parts to stream, in order; a `finish` part ends its turn. */
  push(...parts: ModelPart[]): void;
}

/**
 * A model named `name` that streams only what the test {@link DrivenModel.push}es, waiting in between
 * (until the run is cancelled): each of its turns ends at the next `finish` part.
 */
export function drivenModel(name: string): DrivenModel {
  const queue: ModelPart[] = [];
  let wake: (() => void) | undefined;
  const provider = singleModelProvider(name, async function* (request): AsyncGenerator<ModelPart> {
    for (;;) {
      while (queue.length === 0) {
        await new Promise<void>((resolve, reject) => {
          request.signal.throwIfAborted();
          const abort = () => reject(request.signal.reason);
          request.signal.addEventListener('abort', abort, { once: true });
          wake = () => {
            request.signal.removeEventListener('abort', abort);
            resolve();
          };
        });
      }
      const part = queue.shift()!;
      yield part;
      if (part.type === 'finish') return;
    }
  });
  return {
    provider,
    push(...parts) {
      queue.push(...parts);
      const waiting = wake;
      wake = undefined;
      waiting?.();
    },
  };
}
