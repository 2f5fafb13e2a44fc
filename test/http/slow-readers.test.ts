/**
 * Clients that send their request and then read the answer at a trickle, or not at all: fifty of them,
 * each with a 2 KB receive window, asking for the largest kind of list page there is, disputes with all
 * their evidence (ten fields of 20,000 characters each), 4 MB here. Loopback's buffers take up to about
 * 2 MB of an answer off the API's hands (the kernel grows a loopback socket's send buffer to 4 MB at
 * once, its segments being 64 KB), so a smaller page would never wait in the API, though it would over a
 * real network. The API holds each answer only until SEND_TIMEOUT (3 s here): then it cuts the connection,
 * and what it held goes with it. The clients are a Python process (test/support/slow-readers.py): Node
 * cannot set a socket's receive buffer. On a database of its own: the disputes are written by hand.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { newId } from '../../src/domain/ids.js';
import { EVIDENCE_FIELDS } from '../../src/modules/disputes/dispute.entity.js';
import { eventually, sql } from '../support/payments.js';
import { spawnLogged } from '../support/processes.js';
import type { TestBusiness } from '../support/stack.js';
import { gauge } from '../support/upload.js';
import { useStack } from '../support/use-stack.js';

const SEND_MS = 3_000;
const CLIENTS = 50;
const DISPUTES = 20;
const stack = useStack({ SEND_TIMEOUT: `${SEND_MS}ms` }, { worker: false, ownDatabase: 'slow_readers' });
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), '../support/slow-readers.py');

/** The API's side of each client's connection, from the kernel's table: open (ESTABLISHED) or not. */
function serverSocketsOpen(apiPort: number, clientPorts: number[]): number {
  const ports = new Set(clientPorts);
  const rows = readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1).map((line) => line.trim().split(/\s+/));
  const port = (address: string) => parseInt(address.split(':')[1], 16);
  return rows.filter((r) => r.length > 3 && port(r[1]) === apiPort && ports.has(port(r[2])) && r[3] === '01').length;
}

/** `DISPUTES` chargebacks with every evidence field full, written by hand; the size of their page. */
async function largestPage(biz: TestBusiness): Promise<number> {
  const evidence = JSON.stringify(Object.fromEntries(EVIDENCE_FIELDS.map((field, i) => [field, `${i}`.padEnd(20_000, 'e')])));
  for (let i = 0; i < DISPUTES; i++) {
    const session = randomUUID();
    await sql(
      stack,
      `insert into checkout_sessions (id, business_id, livemode, user_id, status, subtotal, fee, total, description, customer_email, metadata, expires_at, created_at, updated_at, completed_at)
       values (?, ?, false, 'key_x', 'completed', 1000, 0, 1000, 'a sale', 'a@b.example', '{}', now(), now(), now(), now())`,
      [session, biz.id],
    );
    await sql(
      stack,
      `insert into disputes (id, business_id, livemode, checkout_session_id, amount_in_cents, fee_in_cents, reason, status, evidence, evidence_due_by,
         from_available_in_cents, from_reserves_in_cents, owed_in_cents, created_at, updated_at)
       values (?, ?, false, ?, 1000, 1500, 'fraudulent', 'needs_response', ?::jsonb, now() + interval '7 days', 2500, 0, 0, now(), now())`,
      [newId('dsp'), biz.id, session, evidence],
    );
  }
  const page = await stack.http.get('/api/disputes?limit=100', { key: biz.testKey });
  expect(page.body.data.items).toHaveLength(DISPUTES);
  return Buffer.byteLength(JSON.stringify(page.body));
}

describe('a client that reads its answer at a trickle, or not at all', () => {
  it('is cut off SEND_TIMEOUT after its answer is written, and the API holds nothing of it after', async () => {
    const biz = await stack.business({ rateLimitTier: 'enterprise', rateLimitPerMinute: 10_000, rateLimitBurst: 20_000 });
    const pageBytes = await largestPage(biz);
    expect(pageBytes).toBeGreaterThan(4_000_000);
    const cutBefore = await gauge('http_answers_cut_total');

    const url = new URL(stack.origin);
    const apiPort = Number(url.port);
    const readers = spawnLogged(
      'slow-readers',
      'python3',
      [
        script,
        JSON.stringify({
          host: '127.0.0.1', port: apiPort, servername: url.hostname, ca: process.env.TEST_TLS_CA, path: '/api/disputes?limit=100',
          key: biz.testKey, clients: CLIENTS, rcvbuf: 2048, trickle: CLIENTS / 2, seconds: 40,
        }),
      ],
      { env: { PATH: process.env.PATH! }, logDir: path.join(process.env.TEST_ROOT!, 'processes', 'logs') },
    );
    try {
      await readers.waitFor('"ports"', 30_000);
      const ports: number[] = JSON.parse(readers.output().split('\n').find((line) => line.includes('"ports"'))!).ports;
      expect(ports).toHaveLength(CLIENTS);

      // Each answer is written (fifty 4 MB answers take the API seconds to make) and waits, untaken, its
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
    const again = await stack.http.get('/api/disputes?limit=100', { key: biz.testKey });
    expect(again.body.data.items).toHaveLength(DISPUTES);
  }, 120_000);
});
