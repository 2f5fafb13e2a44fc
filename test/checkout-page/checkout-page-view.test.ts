import { formatCents } from '../../src/modules/checkout-page/format.view.js';
import { html } from '../../src/modules/checkout-page/html.view.js';
import { pageState } from '../../src/modules/checkout-page/views/state-pages.js';
import type { CheckoutSession } from '../../src/modules/checkout/index.js';
import { originOf } from '../../src/modules/checkout-page/security-headers.middleware.js';
import { CUSTOMER_DETAILS_SHOWN_MS, showsCustomerDetails } from '../../src/modules/checkout-page/customer-details.rules.js';

describe('html', () => {
  it('escapes every interpolated string, in text and in attributes', () => {
    const name = `<script>alert("x")</script> & 'quoted'`;
    expect(html`<p title="${name}">${name}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;">' +
        '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quoted&#39;</p>',
    );
  });

  it('keeps nested templates as markup and drops null, undefined and false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p>${inner}${null}${undefined}${false}${[html`<br>`, '<hr>']}</p>`.value).toBe('<p><b>&lt;i&gt;</b><br>&lt;hr&gt;</p>');
  });
});

describe('formatCents', () => {
  it.each([
    [0, '$0.00'],
    [5, '$0.05'],
    [4658, '$46.58'],
    [100_000, '$1,000.00'],
    [99_999_999_999, '$999,999,999.99'],
    [-1234, '-$12.34'],
  ])('%p → %p', (cents, text) => expect(formatCents(cents)).toBe(text));
});

describe('originOf (sources allowed by a page CSP)', () => {
  it('takes the origin of an http(s) URL', () => {
    expect(originOf('https://shop.example:8443/cancel?x=1')).toBe('https://shop.example:8443');
    expect(originOf('http://cdn.example/a.png')).toBe('http://cdn.example');
  });

  it('refuses anything that could add a directive or is not a web origin', () => {
    expect(originOf(null)).toBeNull();
    expect(originOf('not a url')).toBeNull();
    expect(originOf('javascript:alert(1)')).toBeNull();
    expect(originOf('data:image/png;base64,AAAA')).toBeNull();
  });
});

describe('pageState (what the hosted page shows)', () => {
  const expiresAt = new Date('2026-11-22T12:00:00Z');
  const before = new Date('2026-11-22T11:00:00Z');
  const after = new Date('2026-11-22T12:00:01Z');
  const session = (status: string, updatedAt = before) => ({ status, expiresAt, updatedAt }) as CheckoutSession;

  it('only a pending session before its expiry is payable', () => {
    expect(pageState(session('pending'), before)).toBe('payable');
    expect(pageState(session('pending'), after)).toBe('expired');
  });

  it('tells a customer cancel from an expiry by when the session was cancelled', () => {
    expect(pageState(session('cancelled', before), after)).toBe('cancelled');
    expect(pageState(session('cancelled', after), after)).toBe('expired');
  });

  it.each(['processing', 'completed', 'failed', 'refunded'])('a %s session shows that state', (status) => {
    expect(pageState(session(status), before)).toBe(status);
  });
});

describe('showsCustomerDetails (how long a receipt names the customer and the card)', () => {
  const paidAt = new Date('2026-11-22T12:00:00Z');
  const at = (ms: number) => new Date(paidAt.getTime() + ms);

  it('for a day after the payment, and not after', () => {
    expect(CUSTOMER_DETAILS_SHOWN_MS).toBe(24 * 3600 * 1000);
    const session = { completedAt: paidAt, updatedAt: at(1000) };
    expect(showsCustomerDetails(session, at(0))).toBe(true);
    expect(showsCustomerDetails(session, at(CUSTOMER_DETAILS_SHOWN_MS - 1))).toBe(true);
    expect(showsCustomerDetails(session, at(CUSTOMER_DETAILS_SHOWN_MS))).toBe(false);
  });

  it('counts from the last change when the payment time is missing', () => {
    expect(showsCustomerDetails({ completedAt: null, updatedAt: paidAt }, at(CUSTOMER_DETAILS_SHOWN_MS + 1))).toBe(false);
  });
});
