/**
 * The names `GET /v1/runs/:id/events?format=` takes (docs/events.md), as data the route's declaration can
 * show without loading the formats; `STREAM_FORMATS` (`src/http/formats/stream-formats.ts`) must serve
 * exactly these, or it does not compile.
 */
export const STREAM_FORMAT_NAMES = ['events', 'openai', 'combined', 'ag-ui', 'ai-sdk'] as const;

/** One of {@link STREAM_FORMAT_NAMES}. */
export type StreamFormatName = (typeof STREAM_FORMAT_NAMES)[number];
