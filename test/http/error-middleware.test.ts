import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { errorMiddleware } from '../../src/http/error-middleware.js';
import { isUnavailable } from '../../src/ops/unavailable.js';

async function call(app: Koa): Promise<{ status: number; body: any; headers: Record<string, string> }> {
  const server = http.createServer(app.callback()).listen(0);
  const { port } = server.address() as AddressInfo;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    return { status: res.status, body: await res.json(), headers: Object.fromEntries(res.headers) };
  } finally {
    server.close();
  }
}

describe('error middleware', () => {
  it('turns an unexpected fault into a bare 500 with no stack, SQL or message, and reports it once', async () => {
    const app = new Koa();
    const reported: unknown[] = [];
    app.on('error', (err) => reported.push(err));
    app.use(async (ctx, next) => {
      ctx.state.requestId = 'req_test';
      await next();
    });
    app.use(errorMiddleware);
    app.use(() => {
      throw new Error('select * from secrets where password = hunter2');
    });
    const res = await call(app);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ success: false, error: { type: 'api_error', message: 'An unexpected error occurred', requestId: 'req_test' } });
    expect(JSON.stringify(res.body)).not.toMatch(/select|hunter2|at /);
    expect(reported).toHaveLength(1);
  });

  it('maps a refused database connection to 503, which says when to retry (Retry-After: 1, retryAfter: 1)', async () => {
    const app = new Koa();
    app.on('error', () => {});
    app.use(errorMiddleware);
    app.use(() => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    const res = await call(app);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: false,
      error: { type: 'service_unavailable', message: 'The service is temporarily unavailable; please retry', retryAfter: 1 },
    });
    expect(res.headers['retry-after']).toBe('1');
  });

  // What a PostgreSQL restart and a Temporal outage throw, each seen by the fault suite (test/faults).
  const fault = (message: string, fields: Record<string, unknown> = {}) => Object.assign(new Error(message), fields);
  it.each([
    ['a connection reset while connecting', fault('connect ECONNRESET 127.0.0.1:5432', { code: 'ECONNRESET', name: 'DriverException' })],
    ['a session terminated by a fast shutdown (57P01)', fault('terminating connection due to administrator command', { code: '57P01' })],
    ['a server shutting down or starting (57P03)', fault('the database system is shutting down', { code: '57P03' })],
    ['a server recovering from a crash (57P02)', fault('terminating connection because of crash of another server process', { code: '57P02' })],
    ['a connection failure (class 08)', fault('connection failure', { code: '08006' })],
    ['a write on a primary Patroni demoted (25006)', fault('cannot execute INSERT in a read-only transaction', { code: '25006' })],
    ['an unlogged table read on a demoted primary', fault('cannot access temporary or unlogged relations during recovery', { code: '0A000' })],
    ['too many connections (53300)', fault('sorry, too many clients already', { code: '53300' })],
    ['the driver losing its socket', fault('Connection terminated unexpectedly')],
    ['the pool timing out on connect', fault('timeout exceeded when trying to connect')],
    ['a driver error under the ORM\'s', fault('DriverException', { cause: fault('read ECONNRESET', { code: 'ECONNRESET' }) })],
    ['Temporal unreachable', fault('14 UNAVAILABLE: No connection established', { name: 'ServiceError' })],
    ['a stopped container\'s name gone from the network\'s DNS', fault('DriverException', { cause: fault('getaddrinfo ENOTFOUND postgres-app', { code: 'ENOTFOUND' }) })],
  ])('counts %s as unavailable (503)', (_name, err) => {
    expect(isUnavailable(err)).toBe(true);
  });

  it.each([
    ['a plain bug', new Error('Cannot read properties of undefined')],
    ['a unique violation', fault('duplicate key value violates unique constraint', { code: '23505' })],
    ['a serialization failure', fault('could not serialize access', { code: '40001' })],
    ['another unsupported feature', fault('cannot use subquery in check constraint', { code: '0A000' })],
    ['nothing at all', undefined],
  ])('does not count %s as unavailable', (_name, err) => {
    expect(isUnavailable(err)).toBe(false);
  });
});
