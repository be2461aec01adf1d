import type { RunEventInput } from '../protocol/run-events.js';
import type { RunInbox } from './run-inbox.js';

export interface AwaitInputOptions {
  inbox: RunInbox;
  emit: (event: RunEventInput) => void;
  now: () => number;
  timeoutMs: number;
}

/**
 * Chat mode's wait after an answer without a tool call (docs/protocol.md §7): emits
 * `run.awaiting_input` and waits for a message. True once one has arrived (the episode takes it into
 * the conversation and goes on), false when the timeout passes first; an abort of `signal` rejects
 * with its reason.
 */
export async function awaitInput(turn: number, signal: AbortSignal, options: AwaitInputOptions): Promise<boolean> {
  const { inbox, emit, now, timeoutMs } = options;
  const deadline = now() + timeoutMs;
  emit({ event: 'run.awaiting_input', turn, expires_at: Math.round(deadline) / 1000 });
  while (!inbox.hasMessages) {
    if (now() >= deadline) return false;
    await inbox.wait(deadline, signal, now);
  }
  return true;
}
