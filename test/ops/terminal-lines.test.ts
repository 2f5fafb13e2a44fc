import { createLogger, NOTABLE, shortLine, shortLineStream } from '../../src/log.js';
import { eventSummary } from '../../src/modules/events/event-summary.rules.js';

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
    log.warn('webhook whd_1 to https://shop.test/hook failed (attempt 1: HTTP 500); next attempt in 1 minute');
    expect(printed.split('\n').map((l) => l.replace(/^\d\d:\d\d:\d\d {2}/, ''))).toEqual([
      'refund of $25.51 completed (ref_1, session s1)',
      'warning: webhook whd_1 to https://shop.test/hook failed (attempt 1: HTTP 500); next attempt in 1 minute',
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
    ['withdrawal.paid', { withdrawalId: 'wd_1', amount: 1000, destinationType: 'wallet' }, 'withdrawal of $10.00 paid to its wallet (wd_1)'],
    ['withdrawal.failed', { withdrawalId: 'wd_1', amount: 1000, failureReason: 'Wallet cannot receive funds' }, 'withdrawal of $10.00 failed: Wallet cannot receive funds (wd_1)'],
    ['webhook_endpoint.disabled', { endpointId: 'wh_1', url: 'https://shop.test/hook', reason: 'failing' }, 'webhook endpoint wh_1 disabled (failing): https://shop.test/hook'],
  ])('%s', (type, payload, line) => {
    expect(eventSummary(type, payload)).toBe(line);
  });

  it('gives a created refund and a test ping no line: the refund’s outcome has one', () => {
    expect([eventSummary('refund.created', { amount: 1 }), eventSummary('webhook.test', {})]).toEqual([null, null]);
  });
});
