/**
 * Request intake with the default settings, as an outsider meets it: bodies sent chunked (no
 * Content-Length) at once, and a second client address trickling uploads that never end. The budget
 * counts bytes as they arrive, so neither can refuse anyone else's ordinary request.
 */
import { creditAvailable, addWalletMethod, testMode } from '../support/seed.js';
import { payBody, paidSession, sessionBody } from '../support/payments.js';
import { gauge, startUpload, trickleHeaders } from '../support/upload.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack();
// A business for each test: a key's rate limit (a burst of 120) would otherwise be the limit met.
const biz = useBusiness(stack);
const other = useBusiness(stack);
const third = useBusiness(stack);

/** Another client: Linux answers every 127.0.0.0/8 address on loopback, so this is a second source address. */
const ATTACKER = '127.0.0.2';

describe('bodies sent chunked, many at once, on an idle stack', () => {
  it('answers 100 concurrent chunked session creates with 201', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => stack.http.post('/api/checkout/sessions', sessionBody({ description: `Chunked #${i}` }), { key: biz.testKey, chunked: true })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(100).fill(201));
  });

  it('answers concurrent chunked pay calls, withdrawals and refunds as it answers sized ones', async () => {
    const sessions = await Promise.all(Array.from({ length: 10 }, () => stack.http.post('/api/checkout/sessions', sessionBody(), { key: other.testKey, chunked: true })));
    const paid = await Promise.all(sessions.map((s) => stack.http.post(`/api/checkout/${s.body.data.id}/pay`, payBody(), { chunked: true })));
    expect(paid.map((p) => p.status)).toEqual(Array(10).fill(200));

    await addWalletMethod(stack.orm, other.id);
    await creditAvailable(stack.orm, testMode(other.id), 10_000);
    const withdrawals = await Promise.all(
      Array.from({ length: 50 }, () =>
        stack.http.post('/api/withdrawals', { amount: 0.01, destinationType: 'wallet', destinationDetails: { walletEmail: 'payouts@merchant.example' } }, { key: other.testKey, chunked: true }),
      ),
    );
    expect(withdrawals.map((w) => w.status)).toEqual(Array(50).fill(201));

    const completed = await Promise.all(Array.from({ length: 5 }, () => paidSession(stack, other)));
    const refunds = await Promise.all(completed.map((s) => stack.http.post('/api/refunds', { checkoutSessionId: s.id }, { key: other.testKey, chunked: true })));
    expect(refunds.map((r) => r.status)).toEqual(Array(5).fill(201));
  });
});

describe('40 uploads trickling from one address', () => {
  it('leave an ordinary create from another address answered at once, and are answered 408 within BODY_READ_TIMEOUT of their last byte', async () => {
    const trickles = Array.from({ length: 40 }, () =>
      startUpload(stack.origin, '/api/checkout/sessions', { key: third.testKey, declaredLength: 1024 * 1024, localAddress: ATTACKER }),
    );
    // A byte every 2 s for 6 s, then nothing: each byte restarts the body's 10 s deadline (one that never
    // stops is cut at BODY_TOTAL_TIMEOUT, test/http/intake-deadlines.test.ts).
    let drops = 0;
    const drip = setInterval(() => drops++ < 3 && trickles.forEach((t) => t.send('{')), 2_000);
    try {
      trickles.forEach((t) => t.send('{'));
      const started = performance.now();
      const ordinary = await stack.http.post('/api/checkout/sessions', sessionBody(), { key: third.testKey });
      expect(ordinary.status).toBe(201);
      expect(performance.now() - started).toBeLessThan(5_000);
      // Forty open bodies of a byte or a few each: what arrived, not the megabyte each declared.
      expect(await gauge('http_request_body_bytes_held')).toBeLessThan(40 * 64);

      const outcomes = await Promise.all(trickles.map((t) => t.answer));
      for (const outcome of outcomes) {
        expect(outcome.ms).toBeLessThan(6_000 + 10_000 + 5_000);
        expect(outcome.status).toBe(408);
        expect(outcome.body).toEqual({
          success: false,
          error: { type: 'request_timeout', message: 'The request was not received in time; please send it again', requestId: expect.stringMatching(/^req_/) },
        });
      }
    } finally {
      clearInterval(drip);
      trickles.forEach((t) => t.abort());
    }
    // What they held came back with their answers.
    expect(await gauge('http_request_body_bytes_held')).toBe(0);
  }, 60_000);

  it('closes a connection whose headers trickle, answering 408 in the envelope, within 30 s', async () => {
    const { text, ms } = await trickleHeaders(stack.origin, { everyMs: 500, localAddress: ATTACKER });
    expect(ms).toBeLessThan(30_000);
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, error: { type: 'request_timeout' } });
  }, 40_000);
});
