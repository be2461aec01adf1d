/** Response headers of every SSE stream we serve: run events (docs/protocol.md §3) and the ORS server's answers. */
export const SSE_HEADERS = {
  // `charset` spelled out: some proxies and older clients otherwise guess Latin-1 for non-ASCII text.
  'Content-Type': 'text/event-stream; charset=utf-8',
  // An event stream or tool result is never the same twice; caches must not replay one.
  'Cache-Control': 'no-cache',
  // nginx buffers proxied responses by default, which would hold events back until the buffer fills.
  'X-Accel-Buffering': 'no',
} as const;

/**
 * How long a browser EventSource waits before reconnecting, as the `retry:` line the first frame
 * that carries data also carries. Never a frame of its own: clients such as openai-python dispatch
 * every frame ended by a blank line as a message and parse its (empty) data as JSON
 * (docs/events.md, "Framing").
 */
export const SSE_RETRY_LINE = 'retry: 3000\n';

/**
 * The comment sent while nothing else is written, so proxies and clients see the stream is alive. A
 * lone comment line, not a frame: no blank line follows it. A reader that, like openai-python and
 * httpx-sse, keeps the last `id:` across frames dispatches a message at every blank line once an
 * id was seen — a keep-alive ended by one would reach it as an empty message.
 */
export const SSE_KEEPALIVE = ': keepalive\n';
