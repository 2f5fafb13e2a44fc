import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { errorMiddleware } from '../../src/http/error-middleware.js';

async function call(app: Koa): Promise<{ status: number; body: any }> {
  const server = http.createServer(app.callback()).listen(0);
  const { port } = server.address() as AddressInfo;
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`);
    return { status: res.status, body: await res.json() };
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

  it('maps a refused database connection to 503', async () => {
    const app = new Koa();
    app.on('error', () => {});
    app.use(errorMiddleware);
    app.use(() => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    const res = await call(app);
    expect(res.status).toBe(503);
    expect(res.body.error.type).toBe('service_unavailable');
  });
});
