import type { Socket } from 'node:net';
import type { Server as TlsServer } from 'node:tls';

/**
 * The spec's "plain HTTP calls fail", helpfully. `curl http://localhost:3443/...` to the TLS port used
 * to fail the handshake and read "Empty reply from server". Now the first byte of a connection decides:
 * a TLS handshake starts with a handshake record (0x16) and goes to TLS as before; anything else is
 * answered `HTTP/1.1 400` with one line of plain text naming the https:// URL, and closed, as nginx does
 * on its TLS ports. Nothing of the API is served on such a connection: the app never sees it.
 */

const TLS_HANDSHAKE_RECORD = 0x16;
/** How long a refused connection may keep sending after the answer, so closing it does not reset it before the client reads. */
const LINGER_MS = 2_000;

/**
 * Puts the check in front of a TLS server's own handling of new connections. A connection that sends
 * nothing is closed after `readTimeoutMs`, as the TLS handshake's own timeout would have closed it.
 */
export function refusePlainHttp(server: TlsServer, readTimeoutMs: number): void {
  const tls = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  server.on('connection', (socket: Socket) => {
    const silent = setTimeout(() => socket.destroy(), readTimeoutMs);
    const gone = () => {
      clearTimeout(silent);
      socket.destroy();
    };
    socket.once('error', gone);
    socket.once('end', gone);
    socket.once('data', (chunk: Buffer) => {
      clearTimeout(silent);
      socket.off('error', gone);
      socket.off('end', gone);
      socket.pause();
      if (chunk[0] === TLS_HANDSHAKE_RECORD) {
        // Given back unread: the TLS socket reads what the raw socket holds before anything else.
        socket.unshift(chunk);
        for (const listener of tls) listener.call(server, socket);
      } else {
        answerPlainHttp(socket, chunk);
      }
    });
  });
}

function answerPlainHttp(socket: Socket, firstBytes: Buffer): void {
  socket.on('error', () => socket.destroy());
  const body = `This server speaks HTTPS only: use ${httpsUrl(firstBytes.toString('latin1'))}\n`;
  socket.end(
    'HTTP/1.1 400 Bad Request\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
  // Whatever else the client sends is read and dropped until it closes: unread bytes at close would
  // make the kernel reset the connection, and the client could lose the answer.
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
const TARGET = /^\/[\x21-\x7e]{0,2047}$/;

/**
 * The https:// form of the request, from its request line and Host header when the first bytes hold
 * them and they are plain (no echo of anything else the client sent); else a general hint.
 */
function httpsUrl(request: string): string {
  const target = /^[A-Z]+ (\S+) HTTP\/1\.[01]\r?\n/.exec(request)?.[1];
  const host = /\r?\nhost:[ \t]*([^\r\n]*?)[ \t]*\r?\n/i.exec(request)?.[1];
  if (!host || !HOST.test(host)) return 'https:// instead of http://';
  return `https://${host}${target && TARGET.test(target) ? target : '/'}`;
}
