import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/** What a load balancer and an orchestrator probe, with no credential to send: open on every ops port. */
const OPEN_PATHS = new Set(['/healthz', '/readyz']);

/**
 * Whether a request may reach the ops port's routes: the probes always; everything else (`/metrics`,
 * the fault suite's `/failpoints`, an unknown path) only with `Authorization: Bearer <ADMIN_TOKEN>` when
 * a token is configured. src/config.ts requires one whenever the port listens beyond loopback. The
 * codec endpoint is mounted ahead of this and keeps its own credential (CODEC_AUTH_TOKEN).
 */
export function opsAuthorised(path: string, header: string | undefined, token: string | undefined): boolean {
  if (!token || OPEN_PATHS.has(path)) return true;
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function refuseOps(res: http.ServerResponse): void {
  res.writeHead(401, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'WWW-Authenticate': 'Bearer' });
  res.end(JSON.stringify({ status: 'unauthorized', error: 'the admin port needs its token: Authorization: Bearer <ADMIN_TOKEN>' }));
}

/**
 * A request handler that no request can take the process down with: a synchronous throw (a path that
 * does not decode, say) is answered 500 and logged, where it would otherwise be an uncaught exception.
 */
export function guarded(
  handler: (req: http.IncomingMessage, res: http.ServerResponse) => void,
  failed: (err: unknown) => void,
): (req: http.IncomingMessage, res: http.ServerResponse) => void {
  return (req, res) => {
    try {
      handler(req, res);
    } catch (err) {
      failed(err);
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ status: 'error' }));
    }
  };
}
