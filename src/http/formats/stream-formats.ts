import { eventsFormat } from './events-format.js';
import type { StreamFormat } from './stream-format.js';

/** The formats `GET /v1/runs/:id/events?format=` serves, by name. */
export const STREAM_FORMATS: Readonly<Record<string, StreamFormat>> = {
  events: eventsFormat,
};
