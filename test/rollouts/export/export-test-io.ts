import type { RolloutExportIo } from '../../../src/commands/rollout-export-command.js';

/** An io for `runRolloutExportCommand` that records what it writes; `stopOnListen` signals as soon as the command listens. */
export function exportTestIo(stopOnListen?: NodeJS.Signals) {
  const out: string[] = [];
  const err: string[] = [];
  const io: RolloutExportIo = {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    onStop: (listener) => {
      if (stopOnListen !== undefined) listener(stopOnListen);
      return () => {};
    },
  };
  return { io, out: () => out.join(''), err: () => err.join('') };
}
