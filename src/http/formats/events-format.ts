import type { StreamFormat } from './stream-format.js';

/** `format=events` (the default): typed events with `id:` = seq and `event:` = type (docs/protocol.md §3.1). */
export const eventsFormat: StreamFormat = {
  // Made with the log entry (`EventLog`): fan-out to many subscribers costs a field read, not a format.
  frame: (entry) => entry.frame,
  end: () => '',
};
