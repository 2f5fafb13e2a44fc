import { jest } from '@jest/globals';
import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { startShop } from '../../examples/shop/src/server.js';
import { launchChromium } from '../browser/chromium.js';
import { newValidator } from '../support/api-document.js';
import { eventually, payToCompletion } from '../support/payments.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { apiDocument } from '../../src/api/openapi/document.js';
import { failOnHiddenAnswers } from './support/hidden-answers.js';
import { trustTestCa } from './support/trust-test-ca.js';

/**
 * examples/shop end to end, in a real browser against the real stack (PostgreSQL, Temporal, worker, the
 * HTTPS API): the shop creates the session with @payments/client, the browser pays on the hosted page,
 * the worker delivers signed webhooks that the shop verifies with @payments/webhooks, and the refund
 * button goes through the client again.
 */
let browser: { context: BrowserContext; close: () => Promise<void> };
let shop: Awaited<ReturnType<typeof startShop>>;

// A paid page goes on to the shop once the payment ends: within seconds on an idle machine, but a fresh
// clone's run at load 18 took past 30 s. The bound is the test's patience, not a speed goal.
jest.setTimeout(180_000);

// The shop's client retries as a merchant's would. Under its retries, every 5xx, 429 and 409 it was
// answered, and every request that got no answer, is counted: one the test did not expect fails it.
const answers = failOnHiddenAnswers();
trustTestCa();
// Declared before the stack's: the shop and the browser let go of their connections before the API closes (hooks run in the order declared).
afterAll(async () => {
  await shop?.close();
  await browser?.close();
});
// The worker trusts the shop's certificate (the test CA), as WEBHOOK_CA_FILE lets a deployment do.
const stack = useStack({ WEBHOOK_CA_FILE: process.env.TEST_TLS_CA!, DISPUTE_NOTICE_DELAY: '500ms', DISPUTE_REVIEW_PERIOD: '1s' });
const biz = useBusiness(stack, { name: 'Northwind Coffee' });
beforeAll(async () => {
  browser = await launchChromium();
  shop = await startShop({
    apiKey: biz.testKey,
    apiBaseUrl: `${stack.origin}/api/v1`,
    port: 0,
    fetch: answers.fetch,
    tls: { cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) },
  });
}, 120_000);

/** Reloads the order page until `read` gives `expected` (the shop learns everything by webhook). */
async function until<T>(page: Page, what: string, read: () => Promise<T>, expected: T, timeoutMs = 45_000): Promise<void> {
  let last: T | undefined;
  await eventually(`${what} to be ${JSON.stringify(expected)}`, async () => {
    try {
      await page.reload({ waitUntil: 'domcontentloaded' });
      last = await read();
    } catch {
      return false; // the page's own refresh raced the reload: try again
    }
    return JSON.stringify(last) === JSON.stringify(expected);
  }, timeoutMs).catch((error: Error) => {
    throw new Error(`${error.message}; it was ${JSON.stringify(last)}`);
  });
}

const untilText = (page: Page, selector: string, expected: string) =>
  until(page, selector, async () => (await page.locator(selector).textContent({ timeout: 2_000 }))?.trim(), expected);

async function payOnHostedPage(page: Page, card = '4242 4242 4242 4242') {
  await page.getByLabel('Card number').fill(card);
  await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
  await page.getByLabel('Security code (CVC)').fill('123');
  await page.getByLabel('Name on card').fill('Ada Lovelace');
  await page.getByRole('button', { name: /^Pay / }).click();
}

/** Every body the shop received for the order is what the API document's `webhooks` say (the source of the types). */
function expectDocumentedBodies(order: { deliveries: { event: { type: string } }[] }) {
  const ajv = newValidator();
  ajv.addSchema(structuredClone(apiDocument()) as object, 'doc');
  for (const { event: body } of order.deliveries) {
    const name = `${body.type.split(/[._]/).map((w) => w[0].toUpperCase() + w.slice(1)).join('')}Event`;
    const validate = ajv.compile({ $ref: `doc#/components/schemas/${name}` });
    expect({ type: body.type, valid: validate(body), errors: validate.errors ?? null }).toEqual({ type: body.type, valid: true, errors: null });
  }
}

const eventsOf = (page: Page, type: string) => page.locator(`[data-event-type="${type}"]`);
/** The order page's deliveries of one event type: [event id, delivery id] per row. */
const deliveriesOf = async (page: Page, type: string) =>
  Promise.all((await eventsOf(page, type).all()).map(async (row) => [await row.locator('td').nth(1).textContent(), await row.locator('td').nth(2).textContent()]));

describe('examples/shop end to end', () => {
  it('buys, is fulfilled once even when checkout.succeeded comes twice, refunds, and sees refund.completed arrive', async () => {
    const page = await browser.context.newPage();
    await page.goto(shop.origin);
    await page.getByRole('button', { name: 'Buy House blend, 1 kg' }).click();

    // 1–2: the client made the session; the browser is on the hosted page.
    await page.waitForURL(`${stack.origin}/checkout/**`);
    await expect(page.locator('.business-name').textContent()).resolves.toBe('Northwind Coffee');
    await payOnHostedPage(page);
    await page.waitForURL(`${shop.origin}/orders/A-1001?session_id=*`, { timeout: 90_000 });
    const order = shop.orders.get('A-1001')!;
    const session = await shop.payments.checkoutSessions.retrieve(order.sessionId!);
    expect(session).toMatchObject({ status: 'completed', metadata: { orderId: 'A-1001' } });

    // 3: paid and fulfilled only on the verified webhook.
    await untilText(page, '#status', 'Paid');
    await expect(page.locator('#fulfilments').textContent()).resolves.toBe('1');
    // The page shows the event and its delivery, as the API's event log has them.
    const [event] = (await shop.payments.events.list({ eventType: 'checkout.succeeded' }).toArray()).filter(
      (e) => (e.payload as { sessionId?: string }).sessionId === order.sessionId,
    );
    expect(event.deliveries).toHaveLength(1);
    const first = event.deliveries[0].id;
    await expect(deliveriesOf(page, 'checkout.succeeded')).resolves.toEqual([[event.id, first]]);

    // The same event delivered again (the API's manual re-send of the delivery the page shows): one fulfilment.
    await shop.payments.events.retry(first);
    await until(page, 'checkout.succeeded deliveries', async () => (await deliveriesOf(page, 'checkout.succeeded')).length, 2);
    const [[, shown], [again, resent]] = await deliveriesOf(page, 'checkout.succeeded');
    expect([shown, again]).toEqual([first, event.id]);
    expect(resent).toMatch(/^whd_[0-9a-f]{32}$/);
    expect(resent).not.toBe(first);
    await expect(page.locator('#fulfilments').textContent()).resolves.toBe('1');
    expect(order.fulfilments).toBe(1);

    // 4: the refund button uses the client; refund.completed arrives by webhook. A refund gives back the
    // whole total, fees included, so it needs more than this one sale left in the balance: an earlier sale.
    const earlier = await shop.payments.checkoutSessions.create({ description: 'Earlier sale', customer: { email: 'bo@example.com' }, items: [{ name: 'Beans', price: 30, quantity: 1 }] });
    await payToCompletion(stack, earlier.id); // the refund needs it paid, not just answered
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Refund' }).click()]);
    expect([page.url(), await page.locator('[role=alert]').count()]).toEqual([`${shop.origin}/orders/A-1001`, 0]);
    await untilText(page, '#status', 'Refunded');
    await expect(eventsOf(page, 'refund.completed').count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: 'Refund' }).count()).resolves.toBe(0);
    expect((await shop.payments.refunds.retrieve(order.refundId!)).status).toBe('completed');
    await page.close();

    expect(order.deliveries.map((d) => d.type)).toEqual(expect.arrayContaining(['checkout.succeeded', 'refund.created', 'refund.completed']));
    expectDocumentedBodies(order);
  });

  it('marks an order paid with the 0259 card disputed on dispute.created, and shows the outcome on dispute.closed', async () => {
    const page = await browser.context.newPage();
    await page.goto(shop.origin);
    await page.getByRole('button', { name: 'Buy Ceramic mug' }).click();
    await page.waitForURL(`${stack.origin}/checkout/**`);
    await payOnHostedPage(page, '4000 0000 0000 0259');
    await page.waitForURL(`${shop.origin}/orders/*?session_id=*`, { timeout: 90_000 });
    const orderId = new URL(page.url()).pathname.split('/').pop()!;
    const order = shop.orders.get(orderId)!;

    // The bank's dispute arrives by webhook a moment after the payment: the order is held.
    await untilText(page, '#status', 'Disputed');
    expect(order.disputeId).toMatch(/^dsp_[0-9a-f]{32}$/);
    await expect(page.locator('#dispute').textContent()).resolves.toBe(order.disputeId);
    const dispute = await shop.payments.disputes.retrieve(order.disputeId!);
    expect(dispute).toMatchObject({ checkoutSessionId: order.sessionId, status: 'needs_response', reason: 'fraudulent' });

    // The shop answers with evidence (Stripe's test phrase wins it); dispute.closed brings the outcome.
    await shop.payments.disputes.submitEvidence(order.disputeId!, { shippingCarrier: 'UPS', uncategorizedText: 'winning_evidence', submit: true });
    await untilText(page, '#status', 'Dispute won');
    expect(order.deliveries.map((d) => d.type)).toEqual(expect.arrayContaining(['checkout.succeeded', 'dispute.created', 'dispute.closed']));
    expect(order.fulfilments).toBe(1);
    expectDocumentedBodies(order);
    await page.close();
  });

  it('refuses a delivery whose signature does not verify: 400, nothing applied', async () => {
    const body = JSON.stringify({ id: 'evt_forged', eventId: 'evt_forged', type: 'checkout.succeeded', payload: {} });
    const forged = await fetch(shop.webhookUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Webhook-Signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` },
      body,
    });
    expect([forged.status, await forged.json()]).toEqual([400, { error: 'bad_signature' }]);
    const unsigned = await fetch(shop.webhookUrl, { method: 'POST', body });
    expect([unsigned.status, await unsigned.json()]).toEqual([400, { error: 'malformed_header' }]);
  });
});
