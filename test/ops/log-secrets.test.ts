import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';
import { startApi, startWorker } from '../../src/main/runtime.js';
import { createApiKey } from '../../src/modules/businesses/index.js';
import { createHttpClient } from '../support/http.js';
import { eventually, sessionBody, sql } from '../support/payments.js';
import { useStack } from '../support/use-stack.js';

/**
 * Runs the operations that handle secrets with every log line captured (at trace level), then scans
 * the capture for the secrets themselves.
 */
const lines: string[] = [];
const capture = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});

const stack = useStack({}, { worker: false });

const CARD = '4242424242424242';
const CVC = '9817';

describe('logs', () => {
  it('never contain API keys, webhook secrets, card numbers or CVCs', async () => {
    const log = createLogger('trace', capture);
    const tls = { cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) };
    const api = await startApi({ config: stack.config, orm: stack.orm, temporal: stack.temporal, log, tls });
    const worker = await startWorker({ config: stack.config, orm: stack.orm, temporal: stack.temporal, log });
    const http = createHttpClient(api.origin, readFileSync(process.env.TEST_TLS_CA!));
    const secrets: string[] = [];
    try {
      const biz = await stack.business();
      const readOnly = await createApiKey(stack.orm.em.fork(), biz.id, 'test', 'read_only');
      secrets.push(biz.testKey, biz.liveKey, readOnly.secret);

      // Authenticated requests, a refused key, and a read-only key refused for a write.
      const created = await http.post('/api/checkout/sessions', sessionBody(), { key: biz.testKey, headers: { 'Idempotency-Key': 'log-1' } });
      expect(created.status).toBe(201);
      expect((await http.get('/api/checkout/sessions', { key: readOnly.secret })).status).toBe(200);
      expect((await http.post('/api/checkout/sessions', sessionBody(), { key: readOnly.secret })).status).toBe(403);
      const wrongKey = `${biz.testKey.slice(0, -4)}abcd`;
      secrets.push(wrongKey);
      expect((await http.get('/api/checkout/sessions', { key: wrongKey })).status).toBe(401);

      // A webhook endpoint: its signing secret is returned once.
      const webhook = await http.post('/api/webhooks', { url: 'https://127.0.0.1:9/hooks', events: ['*'] }, { key: biz.testKey });
      expect(webhook.status).toBe(201);
      expect(webhook.body.data.secret).toMatch(/^whsec_/);
      secrets.push(webhook.body.data.secret);

      // Payments: one that succeeds (its event goes to the endpoint) and one refused by validation.
      const card = { number: CARD, expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: CVC };
      const paid = await http.post(`/api/checkout/${created.body.data.id}/pay`, { card, name: 'Ada Lovelace' });
      // Answered within its 10 s wait, as completed or, on a machine still warming the worker, processing;
      // either way the payment ends completed (that its logs hold no card is what this test is about).
      expect(paid.status).toBe(200);
      expect(['completed', 'processing']).toContain(paid.body.data.status);
      await eventually('the payment to complete', async () =>
        (await sql(stack, 'select status from checkout_sessions where id = ?', [created.body.data.id]))[0].status === 'completed',
      60_000);
      const other = await http.post('/api/checkout/sessions', sessionBody(), { key: biz.testKey });
      const refused = await http.post(`/api/checkout/${other.body.data.id}/pay`, { card: { ...card, expMonth: 13 }, name: 'Ada' });
      expect(refused.status).toBe(400);
      // The webhook path runs under the capture too: wait (or fail) until this endpoint's first attempt is
      // stored. Only this test's rows count; another test in this worker's database may have attempts of its own.
      const attempts = await eventually(
        `the first attempt to POST to endpoint ${webhook.body.data.endpoint.id}`,
        () =>
          sql(
            stack,
            `select a.attempt_number from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
             where d.endpoint_id = ? and d.business_id = ?`,
            [webhook.body.data.endpoint.id, biz.id],
          ).then((rows) => rows.length > 0 && rows),
        30_000, // the event goes through the outbox relay and the fan-out first, on a busy machine
      );
      expect(attempts.map((a) => a.attempt_number)).toContain(1);
    } finally {
      http.close();
      await api.close();
      await worker.stop();
    }

    const text = lines.join('');
    // The capture is real: request lines with their request id, business and mode are in it.
    expect(text).toContain('"requestId":"req_');
    expect(text).toMatch(/"businessId":"biz_[0-9a-f]+","livemode":false/);
    for (const secret of [...secrets, CARD, '4242 4242 4242 4242']) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/whsec_[A-Za-z0-9]/);
    expect(text).not.toMatch(/mp_(live|test)_[A-Za-z0-9]{8,}/);
    // The CVC as a token of its own: four digits turn up inside random hex ids (a request id held 9817 once).
    expect(text).not.toMatch(new RegExp(`(?<![0-9a-fA-F])${CVC}(?![0-9a-fA-F])`));
    expect(text).not.toMatch(/"cvc":"\d/);
    expect(text).not.toMatch(/Bearer\s+\S/);
  }, 180_000); // an in-process worker of its own: its workflows bundled on a busy machine
});
