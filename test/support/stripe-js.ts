/**
 * Where the hosted page loads its Stripe.js from in tests (STRIPE_JS_URL): the stand-in script
 * (stripe-js/stand-in.js) over HTTPS with the test certificate, as js.stripe.com serves the real one, and
 * what Stripe's origins do for it: the card frame (Payment Element), the API calls Stripe.js makes (passed on
 * to stripe-mock through the recording proxy, whose log then holds them), and the issuer's 3-D Secure
 * challenge, which sends the customer back to the page's `return_url` as Stripe does. stripe-mock takes
 * secret keys only, so the publishable key the page uses is swapped for a test secret key on the way.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { STRIPE_API_VERSION } from '../../src/modules/stripe/stripe.client.js';

export interface StripeJsStandIn {
  /** The script's address, for STRIPE_JS_URL. */
  url: string;
  origin: string;
  /** Every API call Stripe.js made here, with its body as sent: where the card number goes. */
  requests: { method: string; path: string; body: string; authorization: string | undefined }[];
  /** Where its API calls go (the recording proxy), set once that is up. */
  apiBase: string;
  close(): Promise<void>;
}

const STAND_IN = readFileSync(new URL('./stripe-js/stand-in.js', import.meta.url));

/** The Payment Element's frame: the card's inputs, and the one script that reads them. */
const CARD_FRAME = `<!doctype html><meta charset="utf-8"><title>Card</title>
<label>Card number <input id="number" autocomplete="cc-number"></label>
<label>Expiry <input id="expiry" placeholder="MM / YY"></label>
<label>CVC <input id="cvc"></label>
<script>
window.addEventListener('message', async (event) => {
  if (event.data?.type !== 'create-payment-method') return;
  const [month, year] = document.getElementById('expiry').value.split('/').map((part) => part.trim());
  const body = new URLSearchParams({ type: 'card', 'card[number]': document.getElementById('number').value.replace(/\\D/g, ''), 'card[exp_month]': month, 'card[exp_year]': year, 'card[cvc]': document.getElementById('cvc').value });
  const res = await fetch('/v1/payment_methods', { method: 'POST', headers: { Authorization: 'Bearer ' + event.data.key, 'Content-Type': 'application/x-www-form-urlencoded' }, body });
  const method = await res.json();
  event.source.postMessage(method.error ? { error: method.error } : { id: method.id }, event.origin);
});
</script>`;

/** The issuer's challenge: whichever the customer does, Stripe sends them back to the page. */
function challengePage(query: URLSearchParams): string {
  const back = (status: string) =>
    `${query.get('return_url')}?${new URLSearchParams({ payment_intent: query.get('payment_intent') ?? '', payment_intent_client_secret: query.get('client_secret') ?? '', redirect_status: status })}`;
  const attr = (text: string) => text.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return `<!doctype html><meta charset="utf-8"><title>3-D Secure</title><h1>Authenticate your payment</h1>
<a id="complete" href="${attr(back('succeeded'))}">Complete authentication</a>
<a id="fail" href="${attr(back('failed'))}">Fail authentication</a>`;
}

export async function startStripeJsStandIn(): Promise<StripeJsStandIn> {
  const requests: StripeJsStandIn['requests'] = [];
  const standIn = { apiBase: '' };
  const cors = { 'Access-Control-Allow-Origin': '*', 'Access-Control-Allow-Headers': 'Authorization, Content-Type', 'Access-Control-Allow-Methods': 'GET, POST' };
  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url!, 'https://stand-in.invalid');
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    // The challenge page's favicon, which the browser asks for: none, and no 404 in the page's console.
    if (url.pathname === '/favicon.ico') return res.writeHead(204).end();
    if (url.pathname === '/v3/') return res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8', ...cors }).end(STAND_IN);
    if (url.pathname === '/elements/payment') return res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(CARD_FRAME);
    if (url.pathname === '/3d_secure') return res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(challengePage(url.searchParams));
    if (!url.pathname.startsWith('/v1/')) return res.writeHead(404).end();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    requests.push({ method: req.method!, path: url.pathname, body, authorization: req.headers.authorization });
    const answer = await fetch(`${standIn.apiBase}${url.pathname}${url.search}`, {
      method: req.method,
      // Stripe.js names its own API version; stripe-mock, run strict, refuses a request without the pinned one.
      headers: { Authorization: 'Bearer sk_test_standin', 'Content-Type': 'application/x-www-form-urlencoded', 'Stripe-Version': STRIPE_API_VERSION },
      body: req.method === 'GET' ? undefined : body,
    });
    res.writeHead(answer.status, { 'Content-Type': 'application/json', ...cors }).end(await answer.text());
  }
  const server = https.createServer({ cert: readFileSync(process.env.TEST_TLS_CERT!), key: readFileSync(process.env.TEST_TLS_KEY!) }, (req, res) => {
    handle(req, res).catch((err) => res.writeHead(502).end(String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://localhost:${(server.address() as AddressInfo).port}`;
  return Object.assign(standIn, {
    url: `${origin}/v3/`,
    origin,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}
