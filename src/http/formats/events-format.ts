import type { StreamFormat } from './stream-format.js';

/** `format=events` (the default): typed events with `id:` = seq and `event:` = type (docs/protocol.md §3.1). */
export const eventsFormat: StreamFormat = {
  frame(entry) {
    // Built when a subscriber first asks and kept on the entry: fan-out to many subscribers then
    // costs a field read, not a format. `formatSseFrame` is not needed here: the type is one of a
    // fixed set and `JSON.stringify` never writes a line break, so the frame is three plain lines.
    entry.frame ??= `id: ${entry.event.seq}\nevent: ${entry.event.event}\ndata: ${entry.json}\n\n`;
    return entry.frame;
  },
  end: () => '',
};
