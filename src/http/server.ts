import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

/**
 * HTTPS only: with a certificate the API speaks TLS, and a plain-HTTP request to its port fails the
 * handshake. Without one it may listen in plain HTTP only behind a TLS-terminating proxy (TRUST_PROXY),
 * where the app refuses requests whose X-Forwarded-Proto is not https.
 */
export async function listen(
  app: Koa,
  opts: { host: string; port: number; tls?: { cert: Buffer; key: Buffer } },
): Promise<{ server: http.Server; port: number; close: () => Promise<void> }> {
  const server = opts.tls ? https.createServer({ ...opts.tls }, app.callback()) : http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
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
