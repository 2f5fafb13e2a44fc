/**
 * The businesses the load runs as, made as an operator makes them (the admin command's services, straight
 * on the app's database), each with a registered wallet and a webhook endpoint on the rehearsal's
 * receiver. The native rehearsal and the containers one (scripts/containers/rehearse.ts) both start here.
 */
import { openDatabase } from '../../src/main/database.js';
import { createBusiness, DEMO_BUSINESS } from '../../src/modules/businesses/index.js';
import { addWithdrawalMethod } from '../../src/modules/withdrawals/index.js';
import type { Client } from './client.js';
import type { LoadBusiness } from './load.js';

export async function createLoadBusinesses(databaseUrl: string, count: number, label = 'Rehearsal business'): Promise<LoadBusiness[]> {
  const orm = await openDatabase(databaseUrl);
  const businesses: LoadBusiness[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const { business, keys } = await createBusiness(orm.em.fork(), {
        ...DEMO_BUSINESS,
        name: `${label} ${i + 1}`,
        rateLimitTier: 'enterprise',
        rateLimitPerMinute: 1_000_000,
        rateLimitBurst: 1_000_000,
        // Reserves of half of them are released within the run, so refunds meet released and held ones.
        reserveHoldMs: i % 2 ? 20_000 : DEMO_BUSINESS.reserveHoldMs,
      });
      const wallet = `payouts+${i}@rehearsal.example`;
      await addWithdrawalMethod(orm.em.fork(), business.id, 'wallet', { walletEmail: wallet });
      businesses.push({ id: business.id, key: keys.find((k) => k.mode === 'test')!.secret, wallet, sessions: new Set(), refunds: new Set(), withdrawals: new Set() });
    }
  } finally {
    await orm.close();
  }
  return businesses;
}

/** Every business subscribes to every event, each at its own URL of the receiver (`url()` a fresh one). */
export async function registerWebhooks(client: Client, businesses: LoadBusiness[], url: () => string): Promise<void> {
  for (const biz of businesses) {
    const hook = await client.post('/api/webhooks', { url: url(), events: ['*'] }, biz.key, [201]);
    if (hook.status !== 201) throw new Error(`could not register a webhook endpoint: ${hook.status} ${hook.text}`);
  }
}
