/**
 * Clients that send their request and then read the answer at a trickle, or not at all: fifty of them,
 * each with a 2 KB receive window and 536-byte segments (so loopback's buffers cannot take the answer off
 * the API's hands), asking for the largest page of the busiest list, a hundred sessions with fifty
 * 255-character metadata values each (1.36 MB). The API holds each answer only until SEND_TIMEOUT (3 s
 * here): then it cuts the connection, and what it held goes with it. The clients are a Python process
 * (test/support/slow-readers.py): Node cannot set a socket's receive buffer or segment size.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { eventually, sessionBody } from '../support/payments.js';
import { spawnLogged } from '../support/processes.js';
import type { TestBusiness } from '../support/stack.js';
import { gauge } from '../support/upload.js';
import { useStack } from '../support/use-stack.js';

const SEND_MS = 3_000;
const CLIENTS = 50;
const stack = useStack({ SEND_TIMEOUT: `${SEND_MS}ms` }, { worker: false });
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '../support/slow-readers.py');

/** The API's side of each client's connection, from the kernel's table: open (ESTABLISHED) or not. */
function serverSocketsOpen(apiPort: number, clientPorts: number[]): number {
  const ports = new Set(clientPorts);
  const rows = readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).map((line) => line.trim().split(/\s+/));
  const port = (address: string) => parseInt(address.split(':')[1], 16);
  return rows.filter((r) => r.length > 3 && port(r[1]) === apiPort && ports.has(port(r[2])) && r[3] === '01').length;
}

/** A hundred sessions with the most metadata a session may carry; the size of their page. */
async function largestPage(biz: TestBusiness): Promise<number> {
  const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`key_${i}`, `${i}`.padEnd(255, 'x')]));
  for (let batch = 0; batch < 10; batch++) {
    const created = await Promise.all(Array.from({ length: 10 }, () => stack.http.post('/api/checkout/sessions', sessionBody({ metadata }), { key: biz.testKey })));
    expect(created.map((c) => c.status)).toEqual(Array(10).fill(201));
  }
  const page = await stack.http.get('/api/checkout/sessions?limit=100', { key: biz.testKey });
  expect(page.body.data.items).toHaveLength(100);
  return Buffer.byteLength(JSON.stringify(page.body));
}

describe('a client that reads its answer at a trickle, or not at all', () => {
  it('is cut off SEND_TIMEOUT after its answer is written, and the API holds nothing of it after', async () => {
    const biz = await stack.business({ rateLimitTier: 'enterprise', rateLimitPerMinute: 10_000, rateLimitBurst: 20_000 });
    const pageBytes = await largestPage(biz);
    expect(pageBytes).toBeGreaterThan(1_300_000);
    const cutBefore = await gauge('http_answers_cut_total');

    const url = new URL(stack.origin);
    const apiPort = Number(url.port);
    const readers = spawnLogged(
      'slow-readers',
      'python3',
      [
        script,
        JSON.stringify({
          host: '127.0.0.1', port: apiPort, servername: url.hostname, ca: process.env.TEST_TLS_CA, path: '/api/checkout/sessions?limit=100',
          key: biz.testKey, clients: CLIENTS, rcvbuf: 2048, mss: 536, trickle: CLIENTS / 2, seconds: 40,
        }),
      ],
      { env: { PATH: process.env.PATH! }, logDir: path.join(process.env.TEST_ROOT!, 'processes', 'logs') },
    );
    try {
      await readers.waitFor('"ports"', 30_000);
      const ports: number[] = JSON.parse(readers.output().split('\n').find((line) => line.includes('"ports"'))!).ports;
      expect(ports).toHaveLength(CLIENTS);

      // Each answer is written (fifty of them take the API a moment to make) and waits, untaken, its
      // connection open, until SEND_TIMEOUT cuts it: then nothing waits and every connection is closed.
      let most = 0;
      await eventually('every answer written and then cut off', async () => {
        const waiting = await gauge('http_answers_waiting');
        most = Math.max(most, waiting);
        return (await gauge('http_answers_cut_total')) - cutBefore === CLIENTS && waiting === 0;
      }, 60_000);
      expect(most).toBeGreaterThan(1);
      expect(serverSocketsOpen(apiPort, ports)).toBe(0);

      // Each client saw its connection end (a reset) with its answer unfinished: not before SEND_TIMEOUT
      // (its answer was written after its request), and well within the run.
      await readers.exited;
      const outcomes = readers.output().split('\n').filter((line) => line.startsWith('{"client"')).map((line) => JSON.parse(line));
      expect(outcomes).toHaveLength(CLIENTS);
      for (const outcome of outcomes) {
        expect(outcome.bytes).toBeLessThan(pageBytes);
        expect(outcome.ended_ms).toBeGreaterThanOrEqual(SEND_MS);
        expect(outcome.ended_ms).toBeLessThan(30_000);
      }
    } finally {
      await readers.kill();
    }

    // A client that reads is served the same page in full meanwhile and after.
    const again = await stack.http.get('/api/checkout/sessions?limit=100', { key: biz.testKey });
    expect(again.body.data.items).toHaveLength(100);
  }, 120_000);
});
