import http from 'node:http';
import { jest } from '@jest/globals';
import Koa from 'koa';
import { listen } from '../../src/http/server.js';
import { createLogger } from '../../src/log.js';
import { gracefulShutdown } from '../../src/main/graceful-shutdown.js';

const log = createLogger('silent');

function request(port: number, agent: http.Agent): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      })
      .on('error', reject);
  });
}

describe('graceful shutdown', () => {
  it('stops taking connections, finishes the request in flight, then runs the later steps, and exits 0', async () => {
    const app = new Koa();
    app.use(async (ctx) => {
      await new Promise((r) => setTimeout(r, 300));
      ctx.body = 'finished';
    });
    const server = await listen(app, { host: '127.0.0.1', port: 0, readTimeoutMs: 10_000 });
    const agent = new http.Agent({ keepAlive: true });
    const order: string[] = [];
    const exit = jest.fn<(code: number) => void>();
    const shutdown = gracefulShutdown({
      log,
      signals: [],
      exit,
      steps: [
        { name: 'server', run: async () => (await server.close(), order.push('server')) },
        { name: 'pools', run: () => order.push('pools') },
      ],
    });

    // A keep-alive connection that has already served a request must not hold the shutdown open.
    await request(server.port, agent).catch(() => undefined);
    const inFlight = request(server.port, agent);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    const done = shutdown();
    await expect(inFlight).resolves.toEqual({ status: 200, text: 'finished' });
    await done;
    expect(Date.now() - started).toBeLessThan(3000);
    expect(order).toEqual(['server', 'pools']);
    expect(exit).toHaveBeenCalledWith(0);
    await expect(request(server.port, new http.Agent())).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    agent.destroy();
  });

  it('runs once however often it is asked, keeps going past a failed step, and then exits 1', async () => {
    const exit = jest.fn<(code: number) => void>();
    const ran: string[] = [];
    const shutdown = gracefulShutdown({
      log,
      signals: [],
      exit,
      steps: [
        { name: 'broken', run: () => Promise.reject(new Error('boom')) },
        { name: 'next', run: () => ran.push('next') },
      ],
    });
    await Promise.all([shutdown(), shutdown()]);
    expect(ran).toEqual(['next']);
    expect(exit).toHaveBeenCalledTimes(1);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it('exits 1 when the steps take longer than the time allowed', async () => {
    const exit = jest.fn<(code: number) => void>();
    const shutdown = gracefulShutdown({ log, signals: [], exit, timeoutMs: 100, steps: [{ name: 'stuck', run: () => new Promise(() => {}) }] });
    void shutdown();
    await new Promise((r) => setTimeout(r, 300));
    expect(exit).toHaveBeenCalledWith(1);
  });
});
