import type { RunEventOf } from '../protocol/run-events.js';

/**
 * What the model is told about a person's decisions (docs/protocol.md §7), as the conversation holds
 * it: the result of a denied call, and the note before the result of a call whose arguments a person
 * edited. The fold writes them, so a replayed log tells the model the same.
 */

/** The tool result of a call that was denied, and so never reached the environment. */
export function denialText(event: RunEventOf<'tool.approval_resolved'>): string {
  switch (event.by) {
    case 'client':
      return event.reason === undefined || event.reason.trim() === ''
        ? 'A person reviewing this call denied it, so it was not run.'
        : `A person reviewing this call denied it, so it was not run. Their reason: ${event.reason}`;
    case 'timeout':
      return 'No one decided on this call in time, so it was denied and not run.';
    case 'cancel':
      return 'The run stopped before anyone decided on this call; it was not run.';
  }
}

/** The note before the result of a call that ran with arguments a person edited. */
export function editedArgumentsText(args: Record<string, unknown>): string {
  return `A person edited the arguments of this call before it ran; it ran with ${JSON.stringify(args)}.`;
}
