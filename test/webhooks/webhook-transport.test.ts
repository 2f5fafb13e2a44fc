import { readFileSync } from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import { createWebhookTransport, DELIVERY_TIMEOUT_MS } from '../../src/modules/webhooks/delivery.transport.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => receiver?.close());

const headers = { 'Content-Type': 'application/json' };

/** The test CA's server certificate, for receivers a test builds itself. */
const serverTls = () => ({ cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) });

/** Listens on a free loopback port; resolves with a URL of it under the certificate's name. */
async function listening(server: net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `https://localhost:${(server.address() as net.AddressInfo).port}/hook`;
}

describe('the HTTP attempt', () => {
  it('trusts a receiver whose CA comes from WEBHOOK_CA_FILE', async () => {
    const post = createWebhookTransport({ caFile: receiver.caFile, allowPrivateUrls: true });
    const url = receiver.url([{ status: 204 }]);
    const outcome = await post(url, headers, '{}');
    expect(outcome).toMatchObject({ ok: true, statusCode: 204, error: null });
    expect(receiver.at(url)).toHaveLength(1);
  });

  it('never skips certificate verification: without the CA the attempt fails and nothing is sent', async () => {
    const post = createWebhookTransport({ allowPrivateUrls: true });
    const url = receiver.url();
    const outcome = await post(url, headers, '{}');
    expect(outcome.ok).toBe(false);
    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/certificate/i);
    expect(receiver.at(url)).toHaveLength(0);
  });

  it('checks the address again at delivery time and refuses a private one', async () => {
    const post = createWebhookTransport({ caFile: receiver.caFile, allowPrivateUrls: false });
    const byName = receiver.url();
    const named = await post(byName, headers, '{}');
    expect(named.error).toMatch(/^Refused: localhost resolves to a non-public address \(/);
    const byAddress = byName.replace('localhost', '127.0.0.1');
    expect((await post(byAddress, headers, '{}')).error).toBe('Refused: 127.0.0.1 resolves to a non-public address (127.0.0.1)');
    expect(receiver.at(byName)).toHaveLength(0);
  });

  it('gives up after its deadline (10 s by default)', async () => {
    expect(DELIVERY_TIMEOUT_MS).toBe(10_000);
    const silent = https.createServer(serverTls(), () => {
      /* never answers */
    });
    const url = await listening(silent);
    try {
      // 2 s, not the 10: long enough for a busy machine's TLS handshake with this process's own server, so
      // the deadline falls where the test means it to, waiting for the answer.
      const post = createWebhookTransport({ caFile: process.env.TEST_TLS_CA, allowPrivateUrls: true, timeoutMs: 2_000 });
      const outcome = await post(url, headers, '{}');
      expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'Timed out after 2 s waiting for the answer' });
      expect(outcome.durationMs).toBeGreaterThanOrEqual(1_990);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it('records why a refused connection failed, at each address of the name (localhost has two)', async () => {
    const closed = net.createServer();
    const url = await listening(closed);
    closed.close();
    const post = createWebhookTransport({ caFile: process.env.TEST_TLS_CA, allowPrivateUrls: true });
    const outcome = await post(url, headers, '{}');
    expect(outcome).toMatchObject({ ok: false, statusCode: null });
    expect(outcome.error).toMatch(/connect ECONNREFUSED 127\.0\.0\.1:\d+/);
  });

  it("names where a timed-out attempt was: a name that never resolves, a port that never finishes TLS's handshake", async () => {
    const unresolved = createWebhookTransport({ allowPrivateUrls: false, timeoutMs: 300, resolveAll: () => new Promise(() => {}) });
    expect((await unresolved('https://hooks.example.com/in', headers, '{}')).error).toBe('Timed out after 0.3 s resolving hooks.example.com');

    const sockets: net.Socket[] = [];
    const mute = net.createServer((socket) => void sockets.push(socket)); // accepts, and never speaks TLS
    const url = await listening(mute);
    try {
      const post = createWebhookTransport({ caFile: process.env.TEST_TLS_CA, allowPrivateUrls: true, timeoutMs: 300 });
      expect((await post(url, headers, '{}')).error).toBe('Timed out after 0.3 s in the TLS handshake');
    } finally {
      for (const socket of sockets) socket.destroy();
      mute.close();
    }
  });
  it('keeps the connection to a receiver alive between deliveries: one TLS handshake for several POSTs', async () => {
    let handshakes = 0;
    const server = https.createServer(serverTls(), (req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    server.on('secureConnection', () => handshakes++);
    const url = await listening(server);
    try {
      const post = createWebhookTransport({ caFile: process.env.TEST_TLS_CA, allowPrivateUrls: true });
      for (let i = 0; i < 3; i++) expect((await post(url, headers, '{}')).ok).toBe(true);
      expect(handshakes).toBe(1);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('sends again, once, on a fresh connection when the kept one turns out to be closed by the receiver', async () => {
    // Answers the first request on each connection and keeps it open; a second request on the same
    // connection gets a TCP reset, as from a receiver that dropped an idle connection without a word.
    const answered: string[] = [];
    let connections = 0;
    const server = net.createServer((raw) => {
      connections++;
      let requests = 0;
      raw.on('error', () => {});
      // TLS over a TCP socket held here: only a plain socket can be reset.
      const socket = new tls.TLSSocket(raw, { isServer: true, ...serverTls() });
      let text = '';
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        const [head, body] = text.split('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(head ?? '')?.[1] ?? NaN);
        if (body === undefined || body.length < length) return;
        text = '';
        if (++requests > 1) return raw.resetAndDestroy();
        answered.push(body);
        socket.write('HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n');
      });
      socket.on('error', () => {});
    });
    const url = await listening(server);
    try {
      const post = createWebhookTransport({ caFile: process.env.TEST_TLS_CA, allowPrivateUrls: true });
      expect(await post(url, headers, '{"n":1}')).toMatchObject({ ok: true, statusCode: 204 });
      expect(await post(url, headers, '{"n":2}')).toMatchObject({ ok: true, statusCode: 204 });
      expect(answered).toEqual(['{"n":1}', '{"n":2}']);
      expect(connections).toBe(2);
    } finally {
      server.close();
    }
  });
});
