import { answerOfResult, payVerdict, type PayHeard } from '../../src/modules/checkout/pay-answer.rules.js';

const MINE = 'attempt-mine';
const answered = (result: Extract<PayHeard, { kind: 'answered' }>['result']): PayHeard => ({ kind: 'answered', result });

describe('payVerdict: what a pay call answers, the database deciding who paid', () => {
  it('tells the call whose attempt moved the session its status, whatever it heard', () => {
    const session = { status: 'completed' as const, paymentAttemptId: MINE };
    for (const heard of [answered({ outcome: 'not_payable', status: 'completed' }), { kind: 'refused' } as const, { kind: 'no_answer' } as const]) {
      expect(payVerdict(session, MINE, heard)).toEqual({ answer: 'status', status: 'completed' });
    }
    expect(payVerdict({ status: 'failed', paymentAttemptId: MINE }, MINE, { kind: 'refused' })).toEqual({ answer: 'status', status: 'failed' });
  });

  it("believes a call's own completed or failed outcome (an update handled by a worker without attempt ids)", () => {
    const session = { status: 'completed' as const, paymentAttemptId: 'from-the-workflow' };
    expect(payVerdict(session, MINE, answered({ outcome: 'completed', status: 'completed' }))).toEqual({ answer: 'status', status: 'completed' });
  });

  it('tells every other call that the session cannot be paid, with the status that says why', () => {
    const paidByAnother = { status: 'completed' as const, paymentAttemptId: 'another' };
    for (const heard of [answered({ outcome: 'not_payable', status: 'processing' }), { kind: 'refused' } as const, { kind: 'no_answer' } as const]) {
      expect(payVerdict(paidByAnother, MINE, heard)).toEqual({ answer: 'not_payable', status: 'completed' });
    }
    expect(payVerdict({ status: 'cancelled', paymentAttemptId: null }, MINE, { kind: 'refused' })).toEqual({ answer: 'not_payable', status: 'cancelled' });
  });

  it('while the session is still pending: processing only once the update is accepted, retry otherwise', () => {
    const pending = { status: 'pending' as const, paymentAttemptId: null };
    expect(payVerdict(pending, MINE, { kind: 'accepted' })).toEqual({ answer: 'status', status: 'processing' });
    // Refused by the run behind another pay that has not moved the session (it may be one fenced off and
    // end pending): "in processing status" would not be true, and this attempt never runs.
    expect(payVerdict(pending, MINE, answered({ outcome: 'not_payable', status: 'processing' }))).toEqual({ answer: 'retry' });
    expect(payVerdict(pending, MINE, { kind: 'refused' })).toEqual({ answer: 'retry' });
    // Unanswered and not known to be held: nothing will come of the call, so "processing" would not be true.
    expect(payVerdict(pending, MINE, { kind: 'no_answer' })).toEqual({ answer: 'retry' });
  });

  it('a call that moved the session to processing is told processing, never to retry, whatever Temporal said', () => {
    const mineInFlight = { status: 'processing' as const, paymentAttemptId: MINE };
    for (const heard of [{ kind: 'no_answer' } as const, { kind: 'refused' } as const, { kind: 'accepted' } as const]) {
      expect(payVerdict(mineInFlight, MINE, heard)).toEqual({ answer: 'status', status: 'processing' });
    }
  });
});

describe('answerOfResult: the answer from the workflow alone (the database could not be read)', () => {
  const session = { id: 'cs-1', successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/no' };

  it("hands the page the charge's secret when the charge was opened for the browser to confirm", () => {
    // Without it the page has no card form to confirm in, and the customer could only wait for the expiry.
    const heard = answered({ outcome: 'confirm', status: 'processing', clientSecret: 'pi_1_secret_2', returnUrl: 'https://pay.example/checkout/cs-1' });
    expect(answerOfResult(session, heard)).toEqual({
      sessionId: 'cs-1',
      status: 'processing',
      redirectUrl: null,
      confirmation: { clientSecret: 'pi_1_secret_2', returnUrl: 'https://pay.example/checkout/cs-1' },
    });
  });

  it("answers the payment's end with its redirect, and processing when nothing was heard", () => {
    expect(answerOfResult(session, answered({ outcome: 'completed', status: 'completed' }))).toMatchObject({ status: 'completed', redirectUrl: expect.stringContaining('https://shop.example/ok') });
    expect(answerOfResult(session, { kind: 'no_answer' })).toMatchObject({ status: 'processing' });
    expect(answerOfResult(session, { kind: 'no_answer' })).not.toHaveProperty('confirmation');
  });
});
