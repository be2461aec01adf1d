import type { StreamFormatName } from '../routes/stream-format-names.js';
import { agUiFormat } from './ag-ui-format.js';
import { aiSdkFormat } from './ai-sdk-format.js';
import { combinedFormat } from './combined-format.js';
import { eventsFormat } from './events-format.js';
import { openaiFormat } from './openai-format.js';
import type { StreamFormat } from './stream-format.js';

/** The formats `GET /v1/runs/:id/events?format=` serves, by the names its declaration shows. */
export const STREAM_FORMATS: Readonly<Record<string, StreamFormat>> = {
  events: eventsFormat,
  openai: openaiFormat,
  combined: combinedFormat,
  'ag-ui': agUiFormat,
  'ai-sdk': aiSdkFormat,
} satisfies Record<StreamFormatName, StreamFormat>;

/**
 * The format called `name`, or undefined. Looked up as an own key only: `?format=__proto__` (or
 * `constructor`, `toString`) must not find what every object inherits and serve a stream with it.
 */
export function streamFormatNamed(name: string): StreamFormat | undefined {
  return Object.hasOwn(STREAM_FORMATS, name) ? STREAM_FORMATS[name] : undefined;
}

/** The name `format` is served by (a metric's label). */
export function streamFormatName(format: StreamFormat): string {
  return Object.keys(STREAM_FORMATS).find((name) => STREAM_FORMATS[name] === format)!;
}
