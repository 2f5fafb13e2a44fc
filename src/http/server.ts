import http from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type Koa from 'koa';
import { ApiError, type ErrorCode } from './errors.js';
import { refusePlainHttp } from './plain-http.js';
import { endWithError, enforceDeadlines } from './deadlines.js';

/** SEND_TIMEOUT's default (src/environment.ts), for a caller that names none. */
const DEFAULT_SEND_TIMEOUT_MS = 30_000;

/**
 * HTTPS only: with a certificate the API speaks TLS, and a plain-HTTP request to its port is answered
 * 400 in one line of plain text, naming the https:// URL, and closed (plain-http.ts). Without one it may listen in plain HTTP only behind a TLS-terminating proxy (TRUST_PROXY),
 * where the app refuses requests whose X-Forwarded-Proto is not https.
 *
 * `readTimeoutMs` (BODY_READ_TIMEOUT) bounds how long a client may take over its request: the first
 * request's headers within it of the connection opening, the TLS handshake included (deadlines.ts), a
 * later request's headers within it of their first byte (Node's `headersTimeout`, checked every second,
 * not its default 30), and the body may go no longer than it without a byte, within `bodyTotalMs`
 * (BODY_TOTAL_TIMEOUT) in all (src/http/body.ts answers 408). Node's own whole-request limit stays above
 * the headers' and the body's together as a backstop for a body nobody reads, instead of its default
 * five minutes. `sendTimeoutMs` (SEND_TIMEOUT) bounds how long an answer may wait for its client to take it.
 */
export async function listen(
  app: Koa,
  opts: { host: string; port: number; tls?: { cert: Buffer; key: Buffer }; readTimeoutMs: number; bodyTotalMs?: number; sendTimeoutMs?: number },
): Promise<{ server: http.Server; port: number; close: () => Promise<void> }> {
  const limits: http.ServerOptions = {
    headersTimeout: opts.readTimeoutMs,
    requestTimeout: opts.readTimeoutMs + (opts.bodyTotalMs ?? opts.readTimeoutMs) + 5_000,
    connectionsCheckingInterval: 1_000,
  };
  const server = opts.tls
    ? https.createServer({ ...opts.tls, ...limits, handshakeTimeout: opts.readTimeoutMs }, app.callback())
    : http.createServer(limits, app.callback());
  if (opts.tls) refusePlainHttp(server as https.Server, opts.readTimeoutMs);
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  enforceDeadlines(server, { tls: Boolean(opts.tls), headersMs: opts.readTimeoutMs, sendMs: opts.sendTimeoutMs ?? DEFAULT_SEND_TIMEOUT_MS });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // server.close() waits for every open connection, and a keep-alive connection would otherwise stay
  // open for its full timeout after its last response. Once closing, each finished response closes
  // its connection; requests still in flight finish first.
  let closing = false;
  server.on('request', (_req: http.IncomingMessage, res: http.ServerResponse) => {
    if (closing) res.shouldKeepAlive = false;
    res.on('finish', () => {
      if (closing) setImmediate(() => server.closeIdleConnections());
    });
  });
  const close = () =>
    new Promise<void>((resolve) => {
      closing = true;
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  return { server, port, close };
}

/** Node's own refusals (before the app sees a request) by code; anything else is a malformed request. */
const CLIENT_ERRORS: Record<string, ErrorCode> = {
  ERR_HTTP_REQUEST_TIMEOUT: 'request_timeout',
  HPE_HEADER_OVERFLOW: 'headers_too_large',
};

/**
 * A request Node refuses itself (headers too slow, too large, or not HTTP) is answered in the spec's
 * envelope instead of Node's bare status line, then the connection is closed. As Node does, nothing is
 * written to a socket that is gone or already carries an answer.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  const answering = (socket as Socket & { _httpMessage?: http.ServerResponse })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
    socket.destroy();
    return;
  }
  endWithError(socket, new ApiError(CLIENT_ERRORS[err.code ?? ''] ?? 'malformed_request'));
}
