import { paymentRedirectUrl, withSessionId } from '../../src/modules/checkout/index.js';

const ID = '0195d7a4-0000-7000-8000-000000000001';

describe('redirect after paying', () => {
  it.each([
    ['https://shop.example/ok', `https://shop.example/ok?session_id=${ID}`],
    ['https://shop.example/ok?order=1', `https://shop.example/ok?order=1&session_id=${ID}`],
    ['https://shop.example/ok?q=a%20b&x=1', `https://shop.example/ok?q=a%20b&x=1&session_id=${ID}`],
    ['https://shop.example/ok?', `https://shop.example/ok?session_id=${ID}`],
    ['https://shop.example/ok#done', `https://shop.example/ok?session_id=${ID}#done`],
    ['https://shop.example/ok?a=1#done', `https://shop.example/ok?a=1&session_id=${ID}#done`],
  ])('appends session_id to %s, keeping its query and fragment', (url, expected) => {
    expect(withSessionId(url, ID)).toBe(expected);
  });

  it('sends a completed session to successUrl and a failed one to failureUrl', () => {
    const session = { id: ID, successUrl: 'https://s.example/ok', failureUrl: 'https://s.example/no' };
    expect(paymentRedirectUrl({ ...session, status: 'completed' })).toBe(`https://s.example/ok?session_id=${ID}`);
    expect(paymentRedirectUrl({ ...session, status: 'failed' })).toBe(`https://s.example/no?session_id=${ID}`);
  });

  it('is null without a URL (the hosted page shows its own receipt) and while still processing', () => {
    expect(paymentRedirectUrl({ id: ID, status: 'completed', successUrl: null, failureUrl: 'https://s.example/no' })).toBeNull();
    expect(paymentRedirectUrl({ id: ID, status: 'failed', successUrl: 'https://s.example/ok', failureUrl: null })).toBeNull();
    expect(paymentRedirectUrl({ id: ID, status: 'processing', successUrl: 'https://s.example/ok', failureUrl: 'https://s.example/no' })).toBeNull();
  });
});
