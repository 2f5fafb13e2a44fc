import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { useBusiness, useStack } from '../support/use-stack.js';

/**
 * Plain http:// to the API's TLS port still fails, as the spec says, but says why: 400 with one line of
 * plain text naming the https:// URL, then the connection closes. Nothing of the API is served on it.
 */
const stack = useStack({ BODY_READ_TIMEOUT: '2s' }, { worker: false });
const biz = useBusiness(stack);
const port = () => Number(new URL(stack.origin).port);

/** Sends bytes on a fresh TCP connection and reads until the server closes it. */
function rawExchange(bytes: string | Buffer): Promise<{ answer: string; closedAfterMs: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port(), '127.0.0.1');
    const started = Date.now();
    let answer = '';
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
    socket.setTimeout(20_000, () => socket.destroy(new Error(`no close; got ${JSON.stringify(answer)}`)));
  });
}

const answerWith = (line: string) =>
  'HTTP/1.1 400 Bad Request\r\n' +
  'Content-Type: text/plain; charset=utf-8\r\n' +
  'X-Content-Type-Options: nosniff\r\n' +
  `Content-Length: ${Buffer.byteLength(line) + 1}\r\n` +
  'Connection: close\r\n\r\n' +
  `${line}\n`;

const sessionsOf = async (businessId: string) =>
  (await stack.orm.em.fork().getConnection().execute<{ n: number }[]>('select count(*)::int as n from checkout_sessions where business_id = ?', [businessId]))[0]!.n;

describe('plain http:// to the HTTPS port', () => {
  it('a GET with a real key gets 400 "This server speaks HTTPS only" naming its https:// URL, and the connection closes', async () => {
    const { answer } = await rawExchange(`GET /api/balance HTTP/1.1\r\nHost: localhost:${port()}\r\nAuthorization: Bearer ${biz.testKey}\r\n\r\n`);
    expect(answer).toBe(answerWith(`This server speaks HTTPS only: use https://localhost:${port()}/api/balance`));
  });

  it('a POST with a body is not served: no session is created, and the answer is not lost to a reset', async () => {
    const body = JSON.stringify({ description: 'x'.repeat(60_000), customer: { email: 'a@b.co' }, items: [{ name: 'x', price: 1, quantity: 1 }] });
    const { answer } = await rawExchange(
      `POST /api/checkout/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port()}\r\nAuthorization: Bearer ${biz.testKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(answer).toBe(answerWith(`This server speaks HTTPS only: use https://127.0.0.1:${port()}/api/checkout/sessions`));
    expect(await sessionsOf(biz.id)).toBe(0);
  });

  it('names no URL it would have to build from what the client sent otherwise: a Host that is not a host, or none', async () => {
    const general = answerWith('This server speaks HTTPS only: use https:// instead of http://');
    expect((await rawExchange('GET / HTTP/1.1\r\nHost: <script>alert(1)</script>\r\n\r\n')).answer).toBe(general);
    expect((await rawExchange('GET / HTTP/1.0\r\n\r\n')).answer).toBe(general);
    expect((await rawExchange('hello\r\n')).answer).toBe(general);
    const odd = await rawExchange(`GET /a\u00ff HTTP/1.1\r\nHost: localhost:${port()}\r\n\r\n`);
    expect(odd.answer).toBe(answerWith(`This server speaks HTTPS only: use https://localhost:${port()}/`));
  });

  it('curl gets the line (exit 0, status 400), as a newcomer would see it', async () => {
    const url = `http://localhost:${port()}/api/checkout/sessions`;
    const curl = await promisify(execFile)('curl', ['-sS', '-w', '\n%{http_code}', '-H', `Authorization: Bearer ${biz.testKey}`, url], { encoding: 'utf8' });
    expect(curl.stdout).toBe(`This server speaks HTTPS only: use https://localhost:${port()}/api/checkout/sessions\n\n400`);
  });

  it('a connection that sends nothing is closed at BODY_READ_TIMEOUT, as the TLS handshake’s timeout closed it', async () => {
    const { answer, closedAfterMs } = await rawExchange(Buffer.alloc(0));
    expect(answer).toBe('');
    expect(closedAfterMs).toBeGreaterThanOrEqual(1_900);
    expect(closedAfterMs).toBeLessThan(15_000);
  });

  it('HTTPS on the same port goes on as before', async () => {
    const res = await stack.http.get('/api/balance', { key: biz.testKey });
    expect(res.status).toBe(200);
    const many = await Promise.all(Array.from({ length: 20 }, () => stack.http.get('/api/checkout/sessions', { key: biz.testKey })));
    expect(many.map((r) => r.status)).toEqual(Array(20).fill(200));
  });
});
