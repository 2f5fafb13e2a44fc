/**
 * The intake's deadlines as a client on a slow line meets them, with BODY_READ_TIMEOUT at 1.5 s and
 * BODY_TOTAL_TIMEOUT at 11 s: a body is refused when it stalls (no byte for BODY_READ_TIMEOUT, as nginx's
 * `client_body_timeout`), not for being slow, up to its total cap; and the first request's headers must
 * arrive within BODY_READ_TIMEOUT of the connection opening, the TLS handshake included.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { EVIDENCE_FIELDS } from '../../src/modules/disputes/dispute.entity.js';
import { openDispute } from '../support/disputes.js';
import { paidSession } from '../support/payments.js';
import { startUpload, type Upload } from '../support/upload.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const READ_MS = 1_500;
const TOTAL_MS = 11_000;
const stack = useStack({ BODY_READ_TIMEOUT: `${READ_MS}ms`, BODY_TOTAL_TIMEOUT: `${TOTAL_MS}ms` });
const biz = useBusiness(stack);

const TIMEOUT_BODY = {
  success: false,
  error: { type: 'request_timeout', message: 'The request was not received in time; please send it again', requestId: expect.stringMatching(/^req_/) },
};

/** A full evidence submission: ten fields of 20,000 characters, each three bytes in UTF-8, so 600 KB. */
function fullEvidence(): Buffer {
  const evidence = Object.fromEntries(EVIDENCE_FIELDS.map((field) => [field, '€'.repeat(20_000)]));
  return Buffer.from(JSON.stringify({ ...evidence, submit: false }));
}

/** Sends `body` in `chunks` pieces, one every `everyMs`, and resolves when the last is sent. */
async function paced(upload: Upload, body: Buffer, chunks: number, everyMs: number): Promise<void> {
  const size = Math.ceil(body.length / chunks);
  // Each piece at its time from the start, so a busy event loop's lateness does not add up over the pieces.
  const start = performance.now();
  for (let i = 0; i < chunks; i++) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, start + (i + 1) * everyMs - performance.now())));
    const piece = body.subarray(i * size, (i + 1) * size);
    if (i === chunks - 1) upload.finish(piece);
    else upload.send(piece);
  }
}

async function openChargeback(): Promise<string> {
  await paidSession(stack, biz);
  const session = await paidSession(stack, biz);
  return (await openDispute(stack, session.id, { reason: 'product_not_received' })).dispute.id;
}

describe('a body on a slow uplink', () => {
  it('is taken however long it takes while bytes keep coming: 600 KB of evidence over 9 s', async () => {
    const id = await openChargeback();
    const body = fullEvidence();
    expect(body.length).toBeGreaterThan(600_000);
    const upload = startUpload(stack.origin, `/api/disputes/${id}/evidence`, { key: biz.testKey, declaredLength: body.length });
    // 30 pieces 300 ms apart: six times BODY_READ_TIMEOUT in all, and past Node's old backstop (2 × 1.5 s + 5 s).
    await paced(upload, body, 30, 300);
    const outcome = await upload.answer;
    expect(outcome.ms).toBeGreaterThan(9_000);
    expect(outcome.status).toBe(200);
    expect(outcome.body.data.evidence.uncategorizedText).toHaveLength(20_000);
  }, 30_000);

  it('is answered 408 once it stalls for BODY_READ_TIMEOUT', async () => {
    const id = await openChargeback();
    const body = fullEvidence();
    const upload = startUpload(stack.origin, `/api/disputes/${id}/evidence`, { key: biz.testKey, declaredLength: body.length });
    upload.send(body.subarray(0, 100_000));
    const stalled = performance.now();
    const outcome = await upload.answer;
    const waited = performance.now() - stalled;
    expect([outcome.status, outcome.body]).toEqual([408, TIMEOUT_BODY]);
    expect(waited).toBeGreaterThanOrEqual(READ_MS - 50);
    expect(waited).toBeLessThan(READ_MS + 3_000);
  }, 30_000);

  it('is answered 408 at BODY_TOTAL_TIMEOUT when it never ends, however steadily its bytes come', async () => {
    const upload = startUpload(stack.origin, '/api/checkout/sessions', { key: biz.testKey, declaredLength: 1024 * 1024 });
    const drip = setInterval(() => upload.send(' '), 500);
    try {
      const outcome = await upload.answer;
      expect([outcome.status, outcome.body]).toEqual([408, TIMEOUT_BODY]);
      expect(outcome.ms).toBeGreaterThanOrEqual(TOTAL_MS - 50);
      expect(outcome.ms).toBeLessThan(TOTAL_MS + 3_000);
    } finally {
      clearInterval(drip);
      upload.abort();
    }
  }, 30_000);
});

describe("the first request's headers", () => {
  /**
   * A connection that opens, completes TLS after `handshakeAfterMs`, then sends a request's head a byte
   * every `everyMs`. Resolves with what came back (the server closes: the request says `Connection: close`)
   * and when its first byte came, from the connection's opening.
   */
  function slowStart(handshakeAfterMs: number, headMs: number): Promise<{ text: string; answeredMs: number }> {
    const url = new URL(stack.origin);
    const head = `GET /api/balance HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${biz.testKey}\r\nConnection: close\r\n\r\n`;
    const everyMs = headMs / head.length;
    const started = performance.now();
    return new Promise((resolve) => {
      const tcp = net.connect({ host: '127.0.0.1', port: Number(url.port) });
      const received: Buffer[] = [];
      let answeredMs = 0;
      let drip: NodeJS.Timeout | undefined;
      tcp.on('error', () => undefined);
      tcp.once('connect', () =>
        setTimeout(() => {
          const socket = tls.connect({ socket: tcp, ca: readFileSync(process.env.TEST_TLS_CA!), servername: url.hostname }, () => {
            if (everyMs === 0) socket.write(head);
            let sent = everyMs === 0 ? head.length : 0;
            drip = setInterval(() => (sent < head.length && socket.writable ? socket.write(head[sent++]) : clearInterval(drip)), everyMs);
          });
          socket.on('data', (chunk: Buffer) => {
            answeredMs ||= performance.now() - started;
            received.push(chunk);
          });
          socket.on('error', () => undefined);
          socket.on('close', () => {
            clearInterval(drip);
            resolve({ text: Buffer.concat(received).toString('utf8'), answeredMs });
          });
        }, handshakeAfterMs),
      );
    });
  }

  it('are due BODY_READ_TIMEOUT after the connection opens, the TLS handshake included: 408 in the envelope, then closed', async () => {
    // The handshake at two thirds of the deadline, then the headers trickled over as long again: each part
    // within the deadline on its own, together past it.
    const outcome = await slowStart((READ_MS * 2) / 3, (READ_MS * 2) / 3);
    expect(outcome.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(outcome.text.slice(outcome.text.indexOf('\r\n\r\n') + 4))).toEqual(TIMEOUT_BODY);
    expect(outcome.answeredMs).toBeGreaterThanOrEqual(READ_MS - 50);
    expect(outcome.answeredMs).toBeLessThan(READ_MS + 1_000);
  }, 30_000);

  it('leave a prompt client alone: a connection that sends its request at once is answered', async () => {
    expect((await slowStart(0, 0)).text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
  }, 30_000);
});
