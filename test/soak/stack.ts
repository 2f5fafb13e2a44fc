/**
 * The soak's service, as an operator runs it: two API processes (src/main/api.ts) and one worker
 * (src/main/worker.ts) on one PostgreSQL database and one Temporal, the test harness's stack with its
 * service in processes (test/support/stack.ts), plus a merchant's HTTPS webhook receiver. Needs the
 * environment the test global setup provides (TEST_ROOT, TEST_DATABASE_URL, TEMPORAL_ADDRESS, TEST_TLS_*).
 */
import { readFileSync } from 'node:fs';
import { addWithdrawalMethod } from '../../src/modules/withdrawals/index.js';
import type { ServiceProcess } from '../support/processes.js';
import { startStack, type Stack } from '../support/stack.js';
import type { ApiProcess } from '../support/stack-processes.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';
import { soakClient, Stats, type SoakClient } from './stats.js';

export interface Destination {
  destinationType: 'wallet' | 'crypto';
  destinationDetails: Record<string, string>;
}

export interface SoakBusiness {
  index: number;
  id: string;
  key: string;
  /** The withdrawal methods registered for it (admin `withdrawal-method add`). */
  methods: Destination[];
  /** Ids seen so far, for reads. */
  sessions: string[];
  refunds: string[];
  withdrawals: string[];
}

export interface SoakStack {
  /** The harness's stack the processes run on: its database, Temporal client and businesses. */
  base: Stack;
  receiver: Receiver;
  processes: { apis: ApiProcess[]; worker: ServiceProcess };
  apis: SoakClient[];
  stats: Stats;
  businesses: SoakBusiness[];
  stop: () => Promise<void>;
}

/** Each business's registered destinations: a wallet, and crypto on an EVM and a Tron network. */
export function methodsFor(index: number): Destination[] {
  const evm = `0x${(0xabcdef0000 + index).toString(16).padStart(40, '0').toUpperCase()}`;
  const base58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  const tron = `T${'Qn9Y2khEsLJW1ChVWFMSMeRDow5Kcb'}${base58[index % 58]}${base58[(index >> 3) % 58]}A`;
  return [
    { destinationType: 'wallet', destinationDetails: { walletEmail: `payouts+${index}@merchant.example` } },
    { destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDC', cryptoNetwork: 'ERC20', cryptoAddress: evm } },
    { destinationType: 'crypto', destinationDetails: { cryptoCoin: 'USDT', cryptoNetwork: 'TRC20', cryptoAddress: tron } },
  ];
}

export async function startSoakStack(businessCount: number): Promise<SoakStack> {
  const receiver = await startReceiver();
  const base = await startStack(
    {
      WEBHOOK_CA_FILE: receiver.caFile,
      // Short, so cancels race the start of processing and withdrawals finish within the run.
      WITHDRAWAL_PROCESSING_DELAY: '2s',
      // The public per-address limit would refuse a load test from one address.
      PUBLIC_RATE_LIMIT_PER_MINUTE: '0',
      // Its hostile requests send wrong keys all along, from the same address.
      AUTH_FAILURES_PER_MINUTE: '0',
      LOG_LEVEL: 'info',
    },
    { processes: 'soak' },
  );
  const [api1, api2, worker] = await Promise.all([
    base.processes.api({ name: 'soak-api-1' }),
    base.processes.api({ name: 'soak-api-2' }),
    base.processes.worker({ name: 'soak-worker' }),
  ]);
  const stats = new Stats();
  const ca = readFileSync(process.env.TEST_TLS_CA!);
  const apis = [soakClient('api-1', api1.origin, ca, stats), soakClient('api-2', api2.origin, ca, stats)];

  const businesses: SoakBusiness[] = [];
  for (let index = 0; index < businessCount; index++) {
    const biz = await base.business({
      name: `Soak business ${index + 1}`,
      // A budget the soak stays under: rate limits have tests of their own; here a 429 would hide work.
      rateLimitTier: 'enterprise',
      rateLimitPerMinute: 1_000_000,
      rateLimitBurst: 1_000_000,
      // Half the businesses release reserves within the run, so refunds meet released and held reserves.
      reserveHoldMs: index % 2 ? 20_000 : 90 * 24 * 3600 * 1000,
    });
    const methods = methodsFor(index);
    for (const m of methods) await addWithdrawalMethod(base.orm.em.fork(), biz.id, m.destinationType, m.destinationDetails);
    businesses.push({ index, id: biz.id, key: biz.testKey, methods, sessions: [], refunds: [], withdrawals: [] });
  }

  return {
    base,
    receiver,
    processes: { apis: [api1, api2], worker },
    apis,
    stats,
    businesses,
    stop: async () => {
      for (const api of apis) api.close();
      await base.stop();
      await receiver.close();
    },
  };
}
