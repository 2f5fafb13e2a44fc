import { CheckoutSession } from '../../src/modules/checkout/index.js';
import { useBusiness, useStack } from '../support/use-stack.js';

const stack = useStack({}, { fabricatesState: true });
const biz = useBusiness(stack, { name: 'Acme <b>Tools</b> & Co' });

const body = (over: Record<string, unknown> = {}) => ({
  description: 'Order #77',
  customer: { email: 'buyer@example.com' },
  items: [
    { name: 'Hammer', price: 19.99, quantity: 2, imageUrl: 'https://img.shop.example/hammer.png' },
    { name: '<script>alert(1)</script>', price: 5, quantity: 1, description: '"quoted" & <i>odd</i>' },
  ],
  urls: { success: 'https://shop.example/ok', cancel: 'https://shop.example:8443/cart?from=pay', failure: null },
  ...over,
});

async function newSession(over: Record<string, unknown> = {}): Promise<string> {
  const res = await stack.http.post('/api/checkout/sessions', body(over), { key: biz.testKey });
  expect(res.status).toBe(201);
  return res.body.data.id;
}
const setSession = (id: string, fields: Partial<CheckoutSession>) =>
  stack.orm.em.fork().nativeUpdate(CheckoutSession, { id }, fields);

describe('GET /checkout/:id (the hosted page)', () => {
  it('shows the business, the items, subtotal, fees and total, and the payment form', async () => {
    const id = await newSession();
    const res = await stack.http.get(`/checkout/${id}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const page = res.text;
    expect(page).toContain('Acme &lt;b&gt;Tools&lt;/b&gt; &amp; Co');
    expect(page).toContain('Hammer');
    expect(page).toContain('src="https://img.shop.example/hammer.png"');
    expect(page).toContain('Qty 2 × $19.99');
    expect(page).toContain('$39.98');
    // subtotal 4498, fee round-half-up(4498 × 2.9 %) + 30 = 160, total 4658
    expect(page).toMatch(/<dt>Subtotal<\/dt><dd>\$44\.98<\/dd>/);
    expect(page).toMatch(/<dt>Fees<\/dt><dd>\$1\.60<\/dd>/);
    expect(page).toMatch(/<dt>Total<\/dt><dd>\$46\.58/);
    expect(page).toContain('value="buyer@example.com"');
    for (const field of ['email', 'number', 'expiry', 'cvc', 'name']) expect(page).toContain(`<label for="${field}">`);
    expect(page).not.toContain('id="addressLine1"');
    expect(page).toContain('data-pay-url="/api/checkout/' + id + '/pay"');
    expect(page).toContain(`action="/checkout/${id}/cancel"`);
    expect(page).toContain('<script type="module" src="/checkout/assets/checkout.js"></script>');
    expect(page).toContain('role="alert"');
    expect(page).toContain('<main id="main"');
  });

  it('escapes every merchant-provided string', async () => {
    const page = (await stack.http.get(`/checkout/${await newSession()}`)).text;
    expect(page).not.toContain('<script>alert(1)</script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page).toContain('&quot;quoted&quot; &amp; &lt;i&gt;odd&lt;/i&gt;');
    expect(page).not.toContain('<b>Tools</b>');
  });

  it('never carries an API key, and card inputs have no name (they are never form-submitted)', async () => {
    const page = (await stack.http.get(`/checkout/${await newSession()}`)).text;
    expect(page).not.toContain(biz.testKey);
    expect(page).not.toMatch(/sk_(test|live)_/);
    expect(page).not.toMatch(/<input[^>]* name=/);
  });

  it('asks for the shipping address when askShipping is true', async () => {
    const page = (await stack.http.get(`/checkout/${await newSession({ askShipping: true })}`)).text;
    for (const field of ['addressLine1', 'addressLine2', 'city', 'state', 'postalCode', 'country']) {
      expect(page).toContain(`<label for="${field}">`);
    }
    expect(page).toContain('<option value="US">United States</option>');
    expect(page).toContain('data-ask-shipping="true"');
  });

  it('sends a strict Content-Security-Policy and the usual security headers', async () => {
    const res = await stack.http.get(`/checkout/${await newSession()}`);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).toContain("img-src 'self' https://img.shop.example;");
    expect(csp).toContain("connect-src 'self';");
    expect(csp).toContain("form-action 'self' https://shop.example:8443;");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['strict-transport-security']).toContain('max-age=31536000');
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('a session that is no longer payable shows its state, never a form', () => {
  it.each([
    ['completed', { completedAt: new Date(), cardBrand: 'visa', cardLast4: '4242' }, 'Payment successful'],
    ['failed', { failureCode: 'card_declined', failureMessage: 'Your card was declined.' }, 'Your card was declined.'],
    ['cancelled', {}, 'Checkout cancelled'],
    ['processing', {}, 'Payment in progress'],
    ['refunded', {}, 'Payment refunded'],
  ] as const)('%s', async (status, fields, text) => {
    const id = await newSession();
    await setSession(id, { status, ...fields });
    const res = await stack.http.get(`/checkout/${id}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(text);
    expect(res.text).toContain(`data-state="${status}"`);
    expect(res.text).not.toContain('<form');
    expect(res.text).not.toContain('checkout.js');
  });

  it('a completed session names the card and links back to the success URL', async () => {
    const id = await newSession();
    await setSession(id, { status: 'completed', completedAt: new Date(), cardBrand: 'visa', cardLast4: '4242' });
    const page = (await stack.http.get(`/checkout/${id}`)).text;
    expect(page).toContain('Charged to Visa ending in 4242.');
    expect(page).toContain(`href="https://shop.example/ok?session_id=${id}"`);
  });

  it('a day after the payment, the page no longer shows the customer’s e-mail or card (the link may have leaked)', async () => {
    const hour = 3600 * 1000;
    const paid = { status: 'completed', cardBrand: 'visa', cardLast4: '4242' } as const;
    const recent = await newSession();
    await setSession(recent, { ...paid, completedAt: new Date(Date.now() - 23 * hour) });
    const shown = (await stack.http.get(`/checkout/${recent}`)).text;
    expect(shown).toContain('Charged to Visa ending in 4242.');
    expect(shown).toContain('Receipt for buyer@example.com.');

    const old = await newSession();
    await setSession(old, { ...paid, completedAt: new Date(Date.now() - 25 * hour) });
    const page = (await stack.http.get(`/checkout/${old}`)).text;
    expect(page).toContain('data-state="completed"');
    expect(page).toContain('$46.58');
    expect(page).toContain(`Reference ${old}`);
    expect(page).not.toContain('buyer@example.com');
    expect(page).not.toContain('4242');
    expect(page).not.toContain('Visa');
    expect(page).toContain('The card and e-mail address are no longer shown for this payment.');
  });

  it('a processing session re-reads itself until the payment ends', async () => {
    const id = await newSession();
    await setSession(id, { status: 'processing' });
    expect((await stack.http.get(`/checkout/${id}`)).text).toContain('<meta http-equiv="refresh" content="3">');
  });

  it('a pending session past its expiry is not payable', async () => {
    const id = await newSession();
    await setSession(id, { expiresAt: new Date(Date.now() - 1000) });
    const page = (await stack.http.get(`/checkout/${id}`)).text;
    expect(page).toContain('Checkout expired');
    expect(page).not.toContain('<form');
  });
});

describe('POST /checkout/:id/cancel', () => {
  it('cancels and sends the customer to cancelUrl with session_id', async () => {
    const id = await newSession();
    const res = await stack.http.post(`/checkout/${id}/cancel`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`https://shop.example:8443/cart?from=pay&session_id=${id}`);
    const read = await stack.http.get(`/api/checkout/sessions/${id}`, { key: biz.testKey });
    expect(read.body.data.status).toBe('cancelled');
  });

  it('without a cancelUrl, comes back to the page, which shows the session cancelled', async () => {
    const id = await newSession({ urls: null });
    const res = await stack.http.post(`/checkout/${id}/cancel`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/checkout/${id}`);
    expect((await stack.http.get(`/checkout/${id}`)).text).toContain('Checkout cancelled');
  });

  it('does not cancel a completed session, and shows it', async () => {
    const id = await newSession();
    await setSession(id, { status: 'completed', completedAt: new Date() });
    const res = await stack.http.post(`/checkout/${id}/cancel`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/checkout/${id}`);
    const read = await stack.http.get(`/api/checkout/sessions/${id}`, { key: biz.testKey });
    expect(read.body.data.status).toBe('completed');
  });
});

describe('page paths answer HTML, not the JSON envelope', () => {
  it.each([
    ['an unknown session', '/checkout/0195d7a4-0000-7000-8000-000000000001'],
    ['a malformed session id', '/checkout/not-a-session'],
    ['an unknown page path', '/checkout/0195d7a4-0000-7000-8000-000000000001/receipt'],
    ['an unknown asset', '/checkout/assets/secret.txt'],
  ])('%s is a friendly 404 page', async (_, path) => {
    const res = await stack.http.get(path);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('Checkout not found');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
  });

  it('cancelling an unknown session is a 404 page', async () => {
    const res = await stack.http.post('/checkout/0195d7a4-0000-7000-8000-000000000001/cancel');
    expect(res.status).toBe(404);
    expect(res.text).toContain('Checkout not found');
  });

  it('another method on a page is a 405 page', async () => {
    const res = await stack.http.put(`/checkout/${await newSession()}`);
    expect(res.status).toBe(405);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('the API keeps its JSON 404', async () => {
    const res = await stack.http.get('/api/nothing-here', { key: biz.testKey });
    expect(res.status).toBe(404);
    expect(res.body.error.type).toBe('not_found');
  });
});

describe('GET /checkout/assets/:name', () => {
  it.each([
    ['checkout.css', 'text/css; charset=utf-8'],
    ['checkout.js', 'text/javascript; charset=utf-8'],
    ['card-checks.js', 'text/javascript; charset=utf-8'],
    ['pay-request.js', 'text/javascript; charset=utf-8'],
    ['stripe-checkout.js', 'text/javascript; charset=utf-8'],
  ])('serves %s as %s, revalidated by ETag', async (name, type) => {
    const res = await stack.http.get(`/checkout/assets/${name}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const again = await stack.http.get(`/checkout/assets/${name}`, { headers: { 'If-None-Match': String(res.headers.etag) } });
    expect(again.status).toBe(304);
  });
});
