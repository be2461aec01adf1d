import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CODES, type ErrorCode } from '../protocol/error-codes.js';
import type { ErrorBody } from './error-middleware.js';

/** What Node's HTTP parser reports, and how each answers: our error code (which gives the status) and message. */
const ANSWERS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [
    'headers_too_large',
    'The request line and headers are larger than the server accepts (16 KiB); send a shorter URL or fewer headers.',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request was not received in time; send it again.'],
};

/**
 * The `clientError` handler of the bridge's HTTP server: a request Node's parser refuses before the
 * app sees it (control characters in a header, a malformed request line, headers too large) gets
 * the error body (docs/protocol.md §2) instead of Node's bare status line, and the connection is closed. When
 * the bad bytes follow a good request on the same connection (a header value with CR LF in it ends
 * the headers early), the good request's answer goes out first and the error after it, in order.
 * A socket already reset is only closed.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // Node's own default handler reads the same internal field: it is the only sign of an answer under way.
  const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (current && !current.writableFinished) {
    current.once('finish', () => answerClientError(error, socket));
    current.once('close', () => {
      if (!current.writableFinished) socket.destroy();
    });
    return;
  }
  const [code, message] = ANSWERS[error.code ?? ''] ?? [
    'malformed_request',
    `The request is not valid HTTP/1.1 (${error.code ?? 'parse error'}); check the request line and the headers (a header value may hold no control character such as NUL, CR or LF).`,
  ];
  const { status } = ERROR_CODES[code];
  const body = JSON.stringify({ error: { code, message } } satisfies ErrorBody);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    // Once the answer is flushed, close: a client that never ends its side must not hold the socket.
    () => socket.destroy(),
  );
}
