import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { exportBalanceTransactions, balanceTransactionsCsv } from '../modules/balance-transactions/index.js';
import { Business } from '../modules/businesses/index.js';
import { verifyLedger } from '../modules/ledger/index.js';
import { queryInstant } from '../http/validate.js';
import { businessCommands } from './business.commands.js';
import { disputeCommand, disputeUsage } from './dispute.commands.js';
import { parseOptions, required, UsageError, type Command, type CommandCall, type CommandDeps, type CommandResult, type Options } from './options.js';
import { withdrawalMethodCommands } from './withdrawal-method.commands.js';

export { UsageError, type CommandResult, type Options } from './options.js';

/** A date (its midnight UTC) or an ISO 8601 instant; `--to` is exclusive, so a month is `--from 2026-11-01 --to 2026-12-01`. */
const instantOption = queryInstant('an ISO 8601 date or instant')
  .transform((value) => new Date(value))
  .optional();
const exportOptions = z.object({ mode: z.enum(['test', 'live']).default('test'), from: instantOption, to: instantOption });

async function ledgerVerify(em: EntityManager): Promise<CommandResult> {
  const report = await verifyLedger(em);
  return {
    text: report.ok ? 'Ledger verified: every invariant holds.' : `Ledger verification FAILED:\n${report.problems.map((problem) => `  - ${problem}`).join('\n')}`,
    json: report,
    exitCode: report.ok ? 0 : 1,
  };
}

async function balanceTransactionsExport(em: EntityManager, { options, required }: CommandCall): Promise<CommandResult> {
  const businessId = required('business id');
  const o = parseOptions(exportOptions, options);
  await em.findOneOrFail(Business, { id: businessId });
  const items = await exportBalanceTransactions(em, { businessId, livemode: o.mode === 'live' }, { from: o.from, to: o.to });
  return { text: balanceTransactionsCsv(items), json: { items } };
}

/** Every command but `dispute …` (which reads its own action), by its two words. */
const commands = new Map<string, Command>(
  Object.entries({
    ...businessCommands,
    ...withdrawalMethodCommands,
    'ledger verify': ledgerVerify,
    'balance-transactions export': balanceTransactionsExport,
  }),
);

export async function runCommand(em: EntityManager, args: string[], options: Options, deps: CommandDeps = {}): Promise<CommandResult> {
  const [area, action, target] = args;
  if (area === 'dispute') return disputeCommand(em, action, target, options, deps);
  const command = commands.get(`${area} ${action}`);
  if (!command) throw new UsageError(USAGE);
  return command(em, { options, required: (what) => required(target, what, USAGE) });
}

export const USAGE = `Usage: npm run admin -- <command> [options] [--json]

  banner          the banner of the running \`npm start\` again (its URLs and demo test key)
  business create --name NAME [--fee-percent 2.9] [--fixed-fee 0.30] [--reserve-percent 10]
                  [--reserve-hold 90d] [--dispute-fee 15.00] [--tier standard|growth|enterprise]
                  [--rate-per-minute N --burst N] [--approved]
  business update BUSINESS_ID [--fee-percent P] [--fixed-fee D] [--reserve-percent P]
                  [--reserve-hold 90d] [--dispute-fee 15.00]
  business approve BUSINESS_ID
  business list
  key create BUSINESS_ID [--mode test|live] [--scope full|read_only]
  key revoke KEY_ID
  withdrawal-method add BUSINESS_ID --type wallet --wallet-email EMAIL
  withdrawal-method add BUSINESS_ID --type crypto --coin USDT|USDC --network ERC20|TRC20 --address ADDRESS
  withdrawal-method list BUSINESS_ID
  withdrawal-method remove METHOD_ID
  ledger verify
  balance-transactions export BUSINESS_ID [--mode test|live] [--from DATE] [--to DATE]
                  CSV of the business's balance transactions created in [from, to), oldest first
${disputeUsage}`;
