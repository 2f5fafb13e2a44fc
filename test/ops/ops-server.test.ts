import http from 'node:http';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { startOpsServer, type OpsServer } from '../../src/ops/ops-server.js';
import { FAILPOINTS_PATH, serveFailpoints } from '../../src/ops/failpoints.js';

/**
 * The ops port on its own (ADMIN_HOST, ADMIN_PORT, ADMIN_TOKEN; docs/decisions.md, Security at the edges,
 * The admin port): open for the probes, behind ADMIN_TOKEN for the rest, its mounts included unless they
 * keep a credential of their own, and never taken down by a request.
 */
const TOKEN = 'a'.repeat(40);
const servers: OpsServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

async function admin(token?: string): Promise<OpsServer> {
  const mounts = [{ path: FAILPOINTS_PATH, serve: serveFailpoints }];
  const server = await startOpsServer({ host: '127.0.0.1', port: 0, log: createLogger('silent'), checks: {}, token, mounts });
  servers.push(server);
  return server;
}

/** A raw request, so a path is sent exactly as written (fetch would re-encode it). */
function request(port: number, method: string, path: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('ADMIN_TOKEN', () => {
  it('leaves /healthz and /readyz open and asks the token of everything else', async () => {
    const { port } = await admin(TOKEN);
    expect((await request(port, 'GET', '/healthz')).status).toBe(200);
    expect((await request(port, 'GET', '/readyz')).status).toBe(200);
    for (const headers of [{} as Record<string, string>, { Authorization: 'Bearer wrong' }, { Authorization: `Basic ${TOKEN}` }, { Authorization: `Bearer ${TOKEN}x` }]) {
      const refused = await request(port, 'GET', '/metrics', headers);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer');
      expect(refused.body).not.toContain('process_cpu');
    }
    // An unknown path is refused the same way: nothing on the port is told to a stranger.
    expect((await request(port, 'GET', '/nothing')).status).toBe(401);
    const metrics = await request(port, 'GET', '/metrics', { Authorization: `Bearer ${TOKEN}` });
    expect(metrics.status).toBe(200);
    expect(metrics.body).toContain('process_cpu');
  });

  it('without a token (loopback, the default) the port answers as before', async () => {
    const { port } = await admin();
    expect((await request(port, 'GET', '/metrics')).status).toBe(200);
  });

  it.each(['0.0.0.0', '::', '10.0.0.5', 'api-1'])('ADMIN_HOST=%s without ADMIN_TOKEN stops start-up with one line naming both', (host) => {
    expect(() => loadConfig({ ADMIN_HOST: host })).toThrow(ConfigError);
    expect(() => loadConfig({ ADMIN_HOST: host })).toThrow(/^Invalid configuration: ADMIN_TOKEN is required when ADMIN_HOST/);
    expect(loadConfig({ ADMIN_HOST: host, ADMIN_TOKEN: TOKEN }).admin).toMatchObject({ host, token: TOKEN });
  });

  it.each(['127.0.0.1', 'localhost', '::1'])('ADMIN_HOST=%s needs no token', (host) => {
    expect(loadConfig({ ADMIN_HOST: host }).admin.token).toBeUndefined();
  });

  it('refuses a short token', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(/^Invalid configuration: ADMIN_TOKEN: must be at least 32 characters/);
  });
});

describe('mounts', () => {
  it('serves the failpoints behind ADMIN_TOKEN, and a mount with its own credential ahead of it', async () => {
    const own = { path: '/own', credential: 'own' as const, serve: (_req: http.IncomingMessage, res: http.ServerResponse) => void res.writeHead(204).end() };
    const server = await startOpsServer({ host: '127.0.0.1', port: 0, log: createLogger('silent'), checks: {}, token: TOKEN, mounts: [own, { path: FAILPOINTS_PATH, serve: serveFailpoints }] });
    servers.push(server);
    expect((await request(server.port, 'PUT', '/failpoints/pay.before-update/ops-mount')).status).toBe(401);
    const auth = { Authorization: `Bearer ${TOKEN}` };
    expect((await request(server.port, 'PUT', '/failpoints/pay.before-update/ops-mount', auth)).status).toBe(200);
    expect((await request(server.port, 'DELETE', '/failpoints/pay.before-update/ops-mount', auth)).status).toBe(200);
    expect((await request(server.port, 'GET', '/own/x')).status).toBe(204);
  });
});

describe('a malformed path', () => {
  it('PUT /failpoints/%E0%A4%A/x answers 400 and the port keeps answering', async () => {
    const { port } = await admin();
    const res = await request(port, 'PUT', '/failpoints/%E0%A4%A/x');
    expect(res.status).toBe(400);
    expect((await request(port, 'GET', '/healthz')).status).toBe(200);
  });
});
