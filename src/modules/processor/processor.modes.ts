import type { BrowserChargeSteps, PaymentProcessor } from './processor.port.js';

/**
 * One processor for each mode: every call goes to the one its request's mode names. Test keys always
 * reach the simulator; live keys the configured acquirer (Stripe), or the simulator where live payments
 * are simulated, or nothing that moves money where they are refused (`refusingLive`).
 */
export function byMode(test: PaymentProcessor, live: PaymentProcessor): PaymentProcessor {
  const of = (livemode: boolean) => (livemode ? live : test);
  return {
    name: `${test.name} (test), ${live.name} (live)`,
    tokenize: (card, livemode) => of(livemode).tokenize(card, livemode),
    prepareCharge: (request) => of(request.livemode).prepareCharge(request),
    charge: (request) => of(request.livemode).charge(request),
    retrieveCharge: (charge) => of(charge.livemode).retrieveCharge(charge),
    openBrowserCharge: (request) => browserCharges(of(request.livemode)).openBrowserCharge(request),
    readBrowserCharge: (charge) => browserCharges(of(charge.livemode)).readBrowserCharge(charge),
    browserChargeSecret: (charge) => browserCharges(of(charge.livemode)).browserChargeSecret(charge),
    payout: (request) => of(request.livemode).payout(request),
    refund: (request) => of(request.livemode).refund(request),
    disputeNotice: (charge) => of(charge.livemode).disputeNotice(charge),
    reviewDisputeEvidence: (review) => of(review.livemode).reviewDisputeEvidence(review),
    submitDisputeEvidence: (submission) => of(submission.livemode).submitDisputeEvidence(submission),
    acceptDispute: (dispute) => of(dispute.livemode).acceptDispute(dispute),
  };
}

/** The processor's browser-confirmed charges; only a mode whose acquirer has them is ever asked (the pay route decides). */
function browserCharges(processor: PaymentProcessor): Required<Pick<PaymentProcessor, BrowserChargeSteps>> {
  const { openBrowserCharge, readBrowserCharge, browserChargeSecret } = processor;
  if (!openBrowserCharge || !readBrowserCharge || !browserChargeSecret) throw new Error(`${processor.name} takes no charge confirmed in the browser`);
  return { openBrowserCharge: openBrowserCharge.bind(processor), readBrowserCharge: readBrowserCharge.bind(processor), browserChargeSecret: browserChargeSecret.bind(processor) };
}
