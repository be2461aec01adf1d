import type { RunRequest, RunSnapshot } from 'runbridge/client';

/**
 * The run's events hold what the model did, not the message that started it, so the page keeps
 * that message in the run's `metadata` (echoed in every snapshot) under this key, to show it when
 * the run is opened again — from the list, a reload or another tab (docs/ui.md).
 */
const INPUT_KEY = 'ui_input';
/** `metadata` holds at most 16 KiB of JSON; the message in it is cut well below that. */
const MAX_KEPT_CHARS = 4000;

/** The `input` and `metadata` of a run started with `message`, or neither for an empty message. */
export function messageFields(message: string): Pick<RunRequest, 'input' | 'metadata'> {
  if (message.trim() === '') return {};
  const kept = message.length > MAX_KEPT_CHARS ? `${message.slice(0, MAX_KEPT_CHARS)}…` : message;
  return { input: message, metadata: { [INPUT_KEY]: kept } };
}

/** The message the page started the run with, if it did. */
export function uiInputOf(snapshot: RunSnapshot | undefined): string | undefined {
  const value = snapshot?.metadata[INPUT_KEY];
  return typeof value === 'string' ? value : undefined;
}
