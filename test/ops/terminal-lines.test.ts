import { createLogger, NOTABLE, shortLine, shortLineStream } from '../../src/log.js';
import { EVENT_TYPES, eventSummary } from '../../src/modules/events/index.js';

/** What `npm start` prints under its banner: a line per notable record, nothing for the rest. */
describe("npm start's short lines", () => {
  const at = new Date(2026, 10, 26, 14, 3, 7).getTime();

  it('shows a notable record, a warning and an error, each as one line with its local time', () => {
    expect(shortLine({ level: 30, time: at, msg: 'payment of $25.51 succeeded (session s1)', notable: true })).toBe('14:03:07  payment of $25.51 succeeded (session s1)');
    expect(shortLine({ level: 40, time: at, msg: 'outbox relay sweep failed', err: { message: 'connection refused' } })).toBe(
      '14:03:07  warning: outbox relay sweep failed: connection refused',
    );
    expect(shortLine({ level: 50, time: at, msg: 'request failed unexpectedly' })).toBe('14:03:07  error: request failed unexpectedly');
  });

  it('leaves every other record to the JSON log', () => {
    expect(shortLine({ level: 30, time: at, msg: 'request completed' })).toBeNull();
  });

  it('is what a logger writing to the stream prints', () => {
    let printed = '';
    const log = createLogger('info', shortLineStream({ write: (text: string) => (printed += text) }));
    log.info({ path: '/api/balance' }, 'request completed');
    log.info({ ...NOTABLE, eventId: 'evt_1' }, 'refund of $25.51 completed (ref_1, session s1)');
    log.warn('webhook delivery whd_1 to https://shop.test/hook failed (attempt 1: HTTP 500); next attempt in 1 minute');
    expect(printed.split('\n').map((l) => l.replace(/^\d\d:\d\d:\d\d {2}/, ''))).toEqual([
      'refund of $25.51 completed (ref_1, session s1)',
      'warning: webhook delivery whd_1 to https://shop.test/hook failed (attempt 1: HTTP 500); next attempt in 1 minute',
      '',
    ]);
  });
});

describe('an event in one line', () => {
  it.each([
    ['checkout.succeeded', { sessionId: 's1', amount: 2551 }, 'payment of $25.51 succeeded (session s1)'],
    ['checkout.failed', { sessionId: 's1', amount: 2551, failureMessage: 'Your card was declined.' }, 'payment of $25.51 failed: Your card was declined. (session s1)'],
    ['refund.completed', { refundId: 'ref_1', sessionId: 's1', amount: 2551 }, 'refund of $25.51 completed (ref_1, session s1)'],
    ['refund.failed', { refundId: 'ref_1', sessionId: 's1', amount: 2551, failureReason: 'Refund declined by the card issuer' }, 'refund of $25.51 failed: Refund declined by the card issuer (ref_1, session s1)'],
    ['withdrawal.paid', { withdrawalId: 'wd_1', amount: 1000, destinationType: 'wallet' }, 'withdrawal of $10.00 paid to a wallet (wd_1)'],
    ['withdrawal.paid', { withdrawalId: 'wd_1', amount: 1000, destinationType: 'crypto' }, 'withdrawal of $10.00 paid to a crypto address (wd_1)'],
    ['withdrawal.failed', { withdrawalId: 'wd_1', amount: 1000, failureReason: 'Wallet cannot receive funds' }, 'withdrawal of $10.00 failed: Wallet cannot receive funds (wd_1)'],
    ['webhook_endpoint.disabled', { endpointId: 'wh_1', url: 'https://shop.test/hook', reason: 'failing' }, 'webhook endpoint wh_1 (https://shop.test/hook) disabled: its deliveries kept failing'],
  ])('%s', (type, payload, line) => {
    expect(eventSummary(type, payload)).toBe(line);
  });

  const dispute = (status: string, over: Record<string, unknown> = {}) => ({
    disputeId: 'dsp_1',
    checkoutSessionId: 's1',
    status,
    reason: 'product_not_received',
    amountInCents: 2551,
    evidenceDueBy: '2026-12-03T14:03:07.123Z',
    ...over,
  });

  it.each([
    ['dispute.created', dispute('needs_response', { reason: 'fraudulent' }), 'dispute of $25.51 opened, a chargeback (fraudulent): evidence due by 2026-12-03 14:03 UTC (dsp_1, session s1)'],
    ['dispute.created', dispute('warning_needs_response'), 'dispute of $25.51 opened, an inquiry (product not received): evidence due by 2026-12-03 14:03 UTC (dsp_1, session s1)'],
    ['dispute.funds_withdrawn', dispute('needs_response'), 'dispute of $25.51: the amount and the dispute fee were taken from the balance (dsp_1, session s1)'],
    ['dispute.evidence_due_soon', dispute('needs_response'), 'dispute of $25.51 still has no evidence: evidence due by 2026-12-03 14:03 UTC (dsp_1, session s1)'],
    ['dispute.updated', dispute('needs_response'), 'dispute of $25.51 updated: evidence due by 2026-12-03 14:03 UTC (dsp_1, session s1)'],
    ['dispute.updated', dispute('under_review'), 'dispute of $25.51: evidence submitted, now under review (dsp_1, session s1)'],
    ['dispute.funds_reinstated', dispute('won'), 'dispute of $25.51 won: the amount was returned to the balance (dsp_1, session s1)'],
    ['dispute.closed', dispute('won'), 'dispute of $25.51 closed: won (dsp_1, session s1)'],
    ['dispute.closed', dispute('lost'), 'dispute of $25.51 closed: lost, the amount stays with the cardholder (dsp_1, session s1)'],
    ['dispute.closed', dispute('warning_closed'), 'dispute of $25.51 closed: the inquiry ended, no money moved (dsp_1, session s1)'],
  ])('%s (%#): the dispute’s id, amount, kind, reason and evidence due date', (type, payload, line) => {
    expect(eventSummary(type, payload)).toBe(line);
  });

  it('gives every event type a line of its own words, none the bare "event <type>"', () => {
    const lined = EVENT_TYPES.filter((type) => type !== 'refund.created' && type !== 'webhook.test');
    for (const type of lined) expect({ type, line: eventSummary(type, dispute('needs_response')) }).toEqual({ type, line: expect.not.stringMatching(/^event /) });
  });

  it('gives a created refund and a test ping no line: the refund’s outcome has one', () => {
    expect([eventSummary('refund.created', { amount: 1 }), eventSummary('webhook.test', {})]).toEqual([null, null]);
  });
});
