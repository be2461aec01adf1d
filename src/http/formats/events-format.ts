import { formatSseFrame } from '../../sse/format-sse-frame.js';
import type { LoggedEvent } from '../../runs/event-log.js';
import type { StreamFormat } from './stream-format.js';

// One frame per event, built once: fan-out to many subscribers then costs a lookup, not a format.
const frames = new WeakMap<LoggedEvent, string>();

/** `format=events` (the default): typed events with `id:` = seq and `event:` = type (CONTRACT §3.1). */
export const eventsFormat: StreamFormat = {
  name: 'events',
  carriesIds: true,
  frame(entry) {
    let frame = frames.get(entry);
    if (frame === undefined) {
      frame = formatSseFrame({ id: entry.event.seq, event: entry.event.event, data: entry.json });
      frames.set(entry, frame);
    }
    return frame;
  },
  end: () => '',
};
