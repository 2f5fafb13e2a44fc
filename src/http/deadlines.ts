import http, { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { newRequestId } from '../domain/ids.js';
import { errorBody } from './error-middleware.js';
import { ApiError } from './errors.js';
import { metrics } from '../ops/metrics.js';

/**
 * Two deadlines Node does not keep by itself, so that a client can hold a connection, and what its
 * answer holds, only for so long:
 * - the first request's headers within `headersMs` of the connection opening, the TLS handshake
 *   included. Node starts its `headersTimeout` only once the handshake is done and the parser is set up,
 *   so a client could take the handshake's time and then the headers' time again;
 * - an answer taken by its client within `sendMs` of being written (`SEND_TIMEOUT`). A client that reads
 *   at a trickle, or not at all, otherwise keeps the answer in this process's memory (what the socket's
 *   kernel buffer cannot take) and its connection open for as long as it likes; past the deadline the
 *   connection is cut, and the answer's memory goes with it.
 */
export function enforceDeadlines(server: http.Server, opts: { tls: boolean; headersMs: number; sendMs: number }): void {
  // A connection and its TLS socket (and the requests on it) share their peer's address and port.
  const awaitingHeaders = new Map<string, { timer: NodeJS.Timeout; secure?: Socket }>();
  const connections = new Map<string, Socket>();
  const peer = (socket: Socket) => `${socket.remoteAddress}|${socket.remotePort}`;

  server.on('connection', (raw: Socket) => {
    const key = peer(raw);
    connections.set(key, raw);
    raw.once('close', () => connections.delete(key));
    const timer = setTimeout(() => {
      const pending = awaitingHeaders.get(key);
      awaitingHeaders.delete(key);
      // In the envelope on the TLS socket once the handshake is done (or on a plain-HTTP listener's);
      // a handshake still not done has nobody to read an HTTP answer, and is closed.
      const socket = opts.tls ? pending?.secure : raw;
      if (socket) answerLate(socket);
      else raw.destroy();
    }, opts.headersMs);
    awaitingHeaders.set(key, { timer });
    raw.once('close', () => {
      clearTimeout(timer);
      if (awaitingHeaders.get(key)?.timer === timer) awaitingHeaders.delete(key);
    });
  });
  server.on('secureConnection', (secure: Socket) => {
    const pending = awaitingHeaders.get(peer(secure));
    if (pending) pending.secure = secure;
  });

  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const pending = awaitingHeaders.get(peer(req.socket));
    if (pending) {
      clearTimeout(pending.timer);
      awaitingHeaders.delete(peer(req.socket));
    }
    // `prefinish`: the whole answer is handed to the socket (the API writes each answer in one `end`);
    // `finish`: the socket has handed its last byte to the kernel, so the client is taking it.
    res.once('prefinish', () => {
      metrics.answerWaiting(1);
      const cut = setTimeout(() => {
        metrics.answerCut();
        // A reset, not a close: the kernel drops what it still holds of the answer (a loopback socket's
        // buffer takes megabytes) and the client hears of it now, not after reading all of that.
        connections.get(peer(res.socket ?? req.socket))?.resetAndDestroy();
        res.destroy();
      }, opts.sendMs);
      let waiting = true;
      const done = () => {
        clearTimeout(cut);
        if (waiting) metrics.answerWaiting(-1);
        waiting = false;
      };
      res.once('finish', done).once('close', done);
    });
  });
}

/** Headers not in by the deadline: 408 in the spec's envelope (as Node's own refusals are answered), then closed. */
function answerLate(socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  endWithError(socket, new ApiError('request_timeout'));
}

/**
 * An error in the spec's envelope written straight to a socket that has no response object (a request
 * Node refused, or one whose headers never came), then the connection closed.
 */
export function endWithError(socket: Socket, error: ApiError): void {
  const body = JSON.stringify(errorBody(error, newRequestId()));
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
