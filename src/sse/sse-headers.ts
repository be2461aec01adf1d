/** Response headers of every SSE stream we serve: run events (CONTRACT §3) and the ORS server's answers. */
export const SSE_HEADERS = {
  // `charset` spelled out: some proxies and older clients otherwise guess Latin-1 for non-ASCII text.
  'Content-Type': 'text/event-stream; charset=utf-8',
  // An event stream or tool result is never the same twice; caches must not replay one.
  'Cache-Control': 'no-cache',
  // nginx buffers proxied responses by default, which would hold events back until the buffer fills.
  'X-Accel-Buffering': 'no',
} as const;

/** The first bytes of every stream: how long a browser EventSource waits before reconnecting. */
export const SSE_PREAMBLE = 'retry: 3000\n\n';

/** The comment sent while nothing else is written, so proxies and clients see the stream is alive. */
export const SSE_KEEPALIVE = ': keepalive\n\n';
