import { html, type Html } from '../html.view.js';

export const ASSET_PATH = '/checkout/assets';

export interface LayoutOptions {
  /** The document title, before " · <business name>". */
  title: string;
  businessName?: string;
  /** A test-mode session says so, so nobody mistakes it for a real charge. */
  livemode?: boolean;
  main: Html;
  /** Only the payment form needs script; every state page works without it. */
  script?: boolean;
  /** Live mode with Stripe: Stripe.js is loaded from here, and the Stripe form script replaces the card form's. */
  stripeJsUrl?: string;
  /** Re-read the page every few seconds (a payment still processing), with no script needed. */
  refreshSeconds?: number;
}

/** The page shell: landmarks (banner, main, contentinfo), the stylesheet and, when asked, the form script. */
export function layout(opts: LayoutOptions): string {
  const title = opts.businessName ? `${opts.title} · ${opts.businessName}` : opts.title;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
${opts.refreshSeconds ? html`<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : ''}
<title>${title}</title>
<link rel="icon" href="${ASSET_PATH}/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${ASSET_PATH}/checkout.css">
${opts.script && opts.stripeJsUrl ? html`<script src="${opts.stripeJsUrl}"></script>
<script type="module" src="${ASSET_PATH}/stripe-checkout.js"></script>` : ''}
${opts.script && !opts.stripeJsUrl ? html`<script type="module" src="${ASSET_PATH}/checkout.js"></script>` : ''}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="banner">
  <p class="business-name">${opts.businessName ?? 'Checkout'}</p>
  ${opts.livemode === false ? html`<p class="test-badge">Test mode</p>` : ''}
</header>
<main id="main" tabindex="-1">
${opts.main}
</main>
<footer class="site-footer">
  <p>Secure checkout. Card details go straight to the payment service over an encrypted connection.</p>
</footer>
</body>
</html>
`.value;
}
