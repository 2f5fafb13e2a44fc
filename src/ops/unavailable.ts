/**
 * Socket errors of a dependency that went away or cannot be reached. ENOTFOUND among them: on a container
 * network a stopped container's name leaves the network's DNS (podman's aardvark-dns, as Docker's), so
 * PostgreSQL held down under compose is `getaddrinfo ENOTFOUND postgres-app`, not a refused connection;
 * the containers rehearsal met it as 500s (docs/production.md).
 */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND']);

/**
 * PostgreSQL's SQLSTATEs for "not now": class 08 (connection exception), a server shutting down or
 * starting up (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now) and 53300
 * too_many_connections. A restart produces all of these within a second, depending on where each
 * request was. And 25006 read_only_sql_transaction: under Patroni, a connection made to the primary
 * that was demoted (a switchover, or a failover it lost) reaches a standby, which refuses every write;
 * nothing was written, the new primary is a reconnect away (the proxy cuts the old sessions).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300|25006)$/;

/**
 * "cannot access … unlogged relations during recovery" (0A000, a class too wide to take whole): the rate
 * counters are unlogged, and a connection that reached a primary Patroni just demoted meets a standby.
 */
const UNAVAILABLE_MESSAGE =
  /cannot access temporary or unlogged relations during recovery|Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Client has encountered a connection error|TransportError/;

/**
 * Whether an error says a dependency cannot answer now (PostgreSQL or Temporal unreachable, shutting down
 * or restarting), as against a fault of the request or the code: the error middleware answers it with a
 * clean 503, not a 500, and the pay call takes it as "the database could not say" (pay.service.ts). The
 * driver's error may sit one or two `cause`s deep under the ORM's.
 */
export function isUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 2) return false;
  const { code, name, message, cause } = err as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown };
  return (
    (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) ||
    name === 'ServiceError' ||
    name === 'ConnectionException' ||
    (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) ||
    isUnavailable(cause, depth + 1)
  );
}
