/**
 * Bursts of concurrent withdrawals to the business's registered destinations (some refused for want of
 * balance), a few to destinations it never registered (refused), then concurrent cancels: the burst that
 * once left an API process answering 500 to every webhook update.
 */
import { randomInt, sleep, validation, notFound, type SoakContext } from './context.js';
import type { Destination, SoakBusiness } from './stack.js';

const CANCEL_REFUSED = validation(/^Cannot cancel withdrawal in \w+ status$/);

/** A registered destination as a client may spell it: e-mails and EVM addresses in any case. */
function spelled(method: Destination, n: number): Destination {
  const d = { ...method.destinationDetails };
  if (n % 2 && d.walletEmail) d.walletEmail = d.walletEmail.toUpperCase();
  if (n % 2 && d.cryptoAddress?.startsWith('0x')) d.cryptoAddress = `0x${d.cryptoAddress.slice(2).toLowerCase()}`;
  return { destinationType: method.destinationType, destinationDetails: d };
}

/** Never registered: another e-mail, another address, and a registered address with another coin. */
function unregistered(biz: SoakBusiness, n: number): Destination {
  const options: Destination[] = [
    { destinationType: 'wallet', destinationDetails: { walletEmail: `someone-else+${n}@elsewhere.example` } },
    { destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDC', cryptoNetwork: 'ERC20', cryptoAddress: `0x${'9'.repeat(39)}${n % 10}` } },
    { destinationType: 'crypto', destinationDetails: { ...biz.methods[1].destinationDetails, cryptoCoin: 'USDT' } },
  ];
  return options[n % options.length];
}

export async function withdrawalsLoop(ctx: SoakContext, biz: SoakBusiness): Promise<void> {
  for (let round = 0; !ctx.stopped(); round++) {
    const size = 4 + randomInt(7);
    const burst = Array.from({ length: size }, (_, i) => {
      const amount = (100 + randomInt(1400)) / 100;
      const to = spelled(biz.methods[i % biz.methods.length], round + i);
      return ctx.api().post('/api/withdrawals', { amount, ...to, notes: `soak ${round}` }, {
        key: biz.key,
        accept: [201, validation('Insufficient available balance')],
      });
    });
    if (round % 3 === 0) {
      burst.push(
        ctx.api().post('/api/withdrawals', { amount: 1, ...unregistered(biz, round) }, { key: biz.key, accept: [validation('Withdrawal method not found')] }),
      );
    }
    const answers = await Promise.all(burst);
    const created = answers.filter((a) => a.status === 201).map((a) => a.body.data.id as string);
    biz.withdrawals.push(...created);
    if (biz.withdrawals.length > 200) biz.withdrawals.splice(0, biz.withdrawals.length - 200);

    // Most are cancelled, each by two requests at once over both APIs: at most one may win.
    const cancelled = created.filter(() => Math.random() < 0.7);
    await Promise.all(cancelled.map((id) => cancelRace(ctx, biz, id)));
    if (round % 5 === 0) {
      await ctx.api().post('/api/withdrawals/wd_soakunknown0000000000/cancel', undefined, { key: biz.key, accept: [notFound('Withdrawal not found')] });
    }
    for (const id of created.slice(0, 2)) await ctx.api().get(`/api/withdrawals/${id}`, { key: biz.key, accept: [200] });
    await sleep(200);
  }
}

async function cancelRace(ctx: SoakContext, biz: SoakBusiness, id: string): Promise<void> {
  const answers = await Promise.all(
    [0, 1].map(() => ctx.api().post(`/api/withdrawals/${id}/cancel`, undefined, { key: biz.key, accept: [200, CANCEL_REFUSED] })),
  );
  const wins = answers.filter((a) => a.status === 200);
  if (wins.length > 1) ctx.stats.problem(`withdrawal ${id} cancelled twice`, { answer: wins.map((a) => a.text).join(' | ') });
  for (const w of wins) if (w.body.data.status !== 'cancelled') ctx.stats.problem(`cancel of ${id} answered 200 with status ${w.body.data.status}`);
}
