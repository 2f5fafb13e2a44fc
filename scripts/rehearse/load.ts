/**
 * Steady mixed load through the proxy, for as long as the restarts take: per business, a buyer loop
 * (create a session, pay it with a test card, wait for the outcome, refund every other completed one)
 * and a treasury loop (withdrawals to the registered wallet, most of them cancelled at once). Every
 * event reaches the business's webhook endpoint on the local receiver. What was created is remembered
 * by business, so the checks can count the rows: one created object per key, no more, no fewer.
 */
import type { Accept } from '../../test/support/http.js';
import type { Client, Stats } from './client.js';

export interface LoadBusiness {
  id: string;
  key: string;
  /** The wallet registered for it (admin `withdrawal-method add`): withdrawals go only there. */
  wallet: string;
  sessions: Set<string>;
  refunds: Set<string>;
  withdrawals: Set<string>;
  /** Sessions whose pay was answered 200, with the status answered: a final one must be found so afterwards. */
  paid?: Map<string, string>;
}

const CARDS = { success: '4242424242424242', declined: '4000000000000002', refundDeclined: '4000000000005126' };
/** Mostly successes (so there is money to withdraw and refund), some declines, some refunds that fail. */
const CARD_TURN = [CARDS.success, CARDS.success, CARDS.declined, CARDS.success, CARDS.refundDeclined];
const FINAL_SESSION = new Set(['completed', 'refunded', 'failed', 'cancelled']);
const validation = (message: string | RegExp): Accept => ({ status: 400, type: 'validation_error', message });
/** A pay whose earlier try took effect (its answer lost): the session is no longer payable. */
const NOT_PAYABLE = validation(/^Cannot pay a checkout session in \w+ status$/);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface LoadFigures {
  payments: number;
  /** Pays retried after a retryable answer whose retry found the session no longer payable (docs/rehearsal.md). */
  payAnswersLost: number;
  refunds: number;
  refundsRefused: number;
  withdrawals: number;
  withdrawalsRefused: number;
  cancels: number;
  cancelsTooLate: number;
}

export function startLoad(client: Client, stats: Stats, businesses: LoadBusiness[]) {
  let stopping = false;
  const figures: LoadFigures = { payments: 0, payAnswersLost: 0, refunds: 0, refundsRefused: 0, withdrawals: 0, withdrawalsRefused: 0, cancels: 0, cancelsTooLate: 0 };

  async function buyer(biz: LoadBusiness, lane: number): Promise<void> {
    for (let n = 0; !stopping; n++) {
      const created = await client.post('/api/checkout/sessions', {
        description: `Rehearsal order ${lane}-${n}`,
        customer: { email: 'buyer@example.com' },
        items: [{ name: 'Rehearsal item', price: 25 + (n % 7), quantity: 1 }],
        urls: { success: 'https://shop.example/ok', failure: 'https://shop.example/failed', cancel: null },
      }, biz.key, [201]);
      if (created.status !== 201) continue;
      const session = created.body.data.id as string;
      biz.sessions.add(session);
      const card = CARD_TURN[(n + lane) % CARD_TURN.length];
      const pay = { card: { number: card, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '123' }, name: 'Ada Lovelace' };
      const paid = await client.post(`/api/checkout/${session}/pay`, pay, undefined, [200, NOT_PAYABLE]);
      figures.payments++;
      if (paid.status === 200) (biz.paid ??= new Map()).set(session, String(paid.body?.data?.status));
      if (paid.status === 400) {
        // Only a retry may meet its own earlier try; a first try refused would be a real failure.
        if (paid.attempts === 1) {
          stats.fail(`pay of new session ${session} refused on its first try: ${paid.text.slice(0, 200)}`);
          continue;
        }
        figures.payAnswersLost++;
      }
      const status = await waitForSession(biz, session);
      if (status === 'completed' && n % 2 === 0) {
        // Withdrawals may have taken the balance a refund needs: then the refund is refused, and nothing moves.
        const refund = await client.post('/api/refunds', { checkoutSessionId: session, reason: 'rehearsal' }, biz.key, [201, validation('Insufficient balance for refund')]);
        if (refund.status === 201) {
          biz.refunds.add(refund.body.data.id);
          figures.refunds++;
        } else if (refund.status === 400) figures.refundsRefused++;
      }
    }
  }

  async function waitForSession(biz: LoadBusiness, session: string): Promise<string | null> {
    for (let i = 0; i < 120; i++) {
      const read = await client.get(`/api/checkout/sessions/${session}`, biz.key, [200]);
      if (read.status === 200 && FINAL_SESSION.has(read.body.data.status)) return read.body.data.status;
      await sleep(500);
    }
    return null; // still open: the checks report it
  }

  async function treasury(biz: LoadBusiness): Promise<void> {
    for (let n = 0; !stopping; n++) {
      const body = { amount: 1 + (n % 3), destinationType: 'wallet', destinationDetails: { walletEmail: biz.wallet }, notes: `rehearsal ${n}` };
      const made = await client.post('/api/withdrawals', body, biz.key, [201, validation('Insufficient available balance')]);
      if (made.status === 201) {
        const id = made.body.data.id as string;
        biz.withdrawals.add(id);
        figures.withdrawals++;
        if (n % 3 !== 2) {
          await sleep(n % 2 ? 0 : 1_500);
          const cancel = await client.post(`/api/withdrawals/${id}/cancel`, undefined, biz.key, [200, validation(/^Cannot cancel withdrawal in \w+ status$/)]);
          figures.cancels++;
          if (cancel.status === 400) figures.cancelsTooLate++;
        }
      } else if (made.status === 400) figures.withdrawalsRefused++;
      await sleep(700);
    }
  }

  const loops = businesses.flatMap((biz, i) => [buyer(biz, 2 * i), buyer(biz, 2 * i + 1), treasury(biz)]);
  return {
    figures,
    /** Ends each loop after its current step; resolves once all have ended. */
    stop: async () => {
      stopping = true;
      await Promise.all(loops);
    },
  };
}
