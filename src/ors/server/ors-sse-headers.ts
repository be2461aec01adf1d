/** Response headers of the ORS server's SSE answers (`/create_session`, `/{env}/call`). */
export const ORS_SSE_HEADERS = {
  // `charset` spelled out: results carry any Unicode, and some clients otherwise guess Latin-1.
  'Content-Type': 'text/event-stream; charset=utf-8',
  // A tool result is never the same twice; caches must not replay one.
  'Cache-Control': 'no-cache',
  // nginx buffers proxied responses by default, which would hold the `task_id` and pings back.
  'X-Accel-Buffering': 'no',
} as const;
