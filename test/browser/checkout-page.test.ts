import { jest } from '@jest/globals';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { CheckoutSession } from '../../src/modules/checkout/index.js';
import { useBusiness, useStack } from '../support/use-stack.js';
import { launchChromium, startMerchantSite } from './chromium.js';

let browser: { context: BrowserContext; close: () => Promise<void> };
let shop: { origin: string; close: () => Promise<void> };
// Declared before the stack's: the browser lets go of its connections before the API closes (hooks run in the order declared).
afterAll(async () => {
  await browser?.close();
  await shop?.close();
});
const stack = useStack({}, { fabricatesState: true });
const biz = useBusiness(stack, { name: 'Northwind Coffee' });

// A paid page goes on to the shop once the payment ends: within seconds on an idle machine, but a fresh
// clone's run at load 18 took past 30 s. The bound is the test's patience, not a speed goal.
jest.setTimeout(180_000);

beforeAll(async () => {
  [browser, shop] = await Promise.all([launchChromium(), startMerchantSite()]);
});

async function newSession(over: Record<string, unknown> = {}) {
  const res = await stack.http.post(
    '/api/checkout/sessions',
    {
      description: 'Order #1042',
      customer: { email: 'ada@example.com' },
      items: [
        { name: 'House blend, 1 kg', price: 24.5, quantity: 2, description: 'Whole beans' },
        { name: 'Ceramic mug', price: 12, quantity: 1 },
      ],
      urls: { success: `${shop.origin}/success`, failure: `${shop.origin}/failure`, cancel: `${shop.origin}/cart` },
      ...over,
    },
    { key: biz.testKey },
  );
  expect(res.status).toBe(201);
  return res.body.data as { id: string; checkoutUrl: string };
}

const statusOf = async (id: string) =>
  (await stack.http.get(`/api/checkout/sessions/${id}`, { key: biz.testKey })).body.data.status;

/** A page that records what would betray a broken page: console errors (CSP violations among them). */
async function openPage(url: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
  await page.goto(url);
  return { page, errors };
}

async function fillCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number);
  await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
  await page.getByLabel('Security code (CVC)').fill('123');
  await page.getByLabel('Name on card').fill('Ada Lovelace');
}

describe('the hosted checkout page in a browser', () => {
  it('shows the business, the items and the totals, with the form ready', async () => {
    const { checkoutUrl } = await newSession();
    const { page, errors } = await openPage(checkoutUrl);
    await expect(page.locator('.business-name').textContent()).resolves.toBe('Northwind Coffee');
    const items = page.getByRole('list', { name: 'Items' }).getByRole('listitem');
    await expect(items.count()).resolves.toBe(2);
    await expect(items.first().textContent()).resolves.toContain('Qty 2 × $24.50');
    // subtotal 6100; fee round-half-up(6100 × 2.9 %) + 30 = 207; total 6307
    const totals = await page.locator('.totals').innerText();
    expect(totals).toMatch(/Subtotal\s+\$61\.00/);
    expect(totals).toMatch(/Fees\s+\$2\.07/);
    expect(totals).toMatch(/Total\s+\$63\.07/);
    await expect(page.getByLabel('Email').inputValue()).resolves.toBe('ada@example.com');
    // The button is enabled by our script: it loaded under the CSP, with nothing blocked.
    await expect(page.getByRole('button', { name: 'Pay $63.07' }).isEnabled()).resolves.toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('blocks a bad card number before anything is sent', async () => {
    const { id, checkoutUrl } = await newSession();
    const { page } = await openPage(checkoutUrl);
    const payCalls: string[] = [];
    page.on('request', (r) => r.url().includes('/pay') && payCalls.push(r.url()));
    await fillCard(page, '4242 4242 4242 4241');
    await page.getByLabel('Card number').press('Enter'); // keyboard submit
    await expect(page.locator('#number-error').textContent()).resolves.toBe('Your card number is invalid.');
    await expect(page.getByLabel('Card number').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByRole('alert').innerText()).resolves.toContain('Please correct the highlighted fields.');
    // Focus goes to the field to fix.
    await expect(page.locator('#number:focus').count()).resolves.toBe(1);
    expect(payCalls).toEqual([]);
    expect(await statusOf(id)).toBe('pending');
    await page.close();
  });

  it('pays with 4242 4242 4242 4242 and lands on successUrl; the session reads completed', async () => {
    const { id, checkoutUrl } = await newSession();
    const { page } = await openPage(checkoutUrl);
    await fillCard(page, '4242 4242 4242 4242');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(`${shop.origin}/success?session_id=${id}`, { timeout: 90_000 });
    expect(await statusOf(id)).toBe('completed');
    await page.close();
  });

  it('a pay that never reached the service says so and leaves the form to try again, which pays', async () => {
    const { id, checkoutUrl } = await newSession();
    const { page } = await openPage(checkoutUrl);
    await fillCard(page, '4242 4242 4242 4242');
    // The connection drops before any answer: nothing reached the API.
    await page.route('**/pay', (route) => route.abort('connectionreset'));
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('alert').getByText('We could not reach the payment service.', { exact: false }).waitFor();
    await expect(page.getByRole('button', { name: /^Pay / }).isEnabled()).resolves.toBe(true);
    expect(await statusOf(id)).toBe('pending');
    await page.unroute('**/pay');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(`${shop.origin}/success?session_id=${id}`, { timeout: 90_000 });
    expect(await statusOf(id)).toBe('completed');
    await page.close();
  });

  it('a declined card (4000 0000 0000 0002) lands on failureUrl', async () => {
    const { id, checkoutUrl } = await newSession();
    const { page } = await openPage(checkoutUrl);
    await fillCard(page, '4000000000000002');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.waitForURL(`${shop.origin}/failure?session_id=${id}`, { timeout: 90_000 });
    expect(await statusOf(id)).toBe('failed');
    await page.close();
  });

  it('with no redirect URLs and a shipping address, shows the hosted receipt', async () => {
    const { id, checkoutUrl } = await newSession({ urls: null, askShipping: true });
    const { page } = await openPage(checkoutUrl);
    await fillCard(page, '4242424242424242');
    await page.getByLabel('Address line 1').fill('1 Analytical Way');
    await page.getByLabel('City').fill('London');
    await page.getByLabel('State / region').fill('Greater London');
    await page.getByLabel('Postal code').fill('NW1 6XE');
    await page.getByLabel('Country').selectOption('GB');
    await page.getByRole('button', { name: /^Pay / }).click();
    await page.getByRole('heading', { name: 'Payment successful' }).waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(checkoutUrl);
    expect(await statusOf(id)).toBe('completed');
    await page.close();
  });

  it('Cancel lands on cancelUrl with the session cancelled', async () => {
    const { id, checkoutUrl } = await newSession();
    const { page } = await openPage(checkoutUrl);
    await page.getByRole('button', { name: 'Cancel and return to Northwind Coffee' }).click();
    await page.waitForURL(`${shop.origin}/cart?session_id=${id}`);
    expect(await statusOf(id)).toBe('cancelled');
    await page.close();
  });

  it('a completed session shows its state and no form', async () => {
    const { id, checkoutUrl } = await newSession();
    await stack.orm.em
      .fork()
      .nativeUpdate(CheckoutSession, { id }, { status: 'completed', completedAt: new Date(), cardBrand: 'visa', cardLast4: '4242' });
    const { page } = await openPage(checkoutUrl);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Payment successful');
    await expect(page.locator('form').count()).resolves.toBe(0);
    await expect(page.getByLabel('Card number').count()).resolves.toBe(0);
    await page.close();
  });

  // Looked at by a person, not asserted: SCREENSHOT_DIR=/tmp/shots npm test -- test/browser
  const shots = process.env.SCREENSHOT_DIR;
  (shots ? it : it.skip)('takes desktop and phone screenshots', async () => {
    const { checkoutUrl } = await newSession({ askShipping: true });
    for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 390, height: 844 }]] as const) {
      const { page } = await openPage(checkoutUrl);
      await page.setViewportSize(viewport);
      await page.screenshot({ path: path.join(shots!, `checkout-${name}.png`), fullPage: true });
      await page.getByRole('button', { name: /^Pay / }).click();
      await page.screenshot({ path: path.join(shots!, `checkout-${name}-errors.png`), fullPage: true });
      await page.close();
    }
    const paid = await newSession({ urls: null });
    await stack.orm.em
      .fork()
      .nativeUpdate(CheckoutSession, { id: paid.id }, { status: 'completed', completedAt: new Date(), cardBrand: 'visa', cardLast4: '4242' });
    const { page } = await openPage(paid.checkoutUrl);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: path.join(shots!, 'checkout-phone-receipt.png'), fullPage: true });
    await page.close();
  });
});
