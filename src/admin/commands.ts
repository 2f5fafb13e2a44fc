import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { durationMs } from '../config.js';
import { RATE_LIMIT_TIERS } from '../modules/businesses/business.entity.js';
import { verifyLedger } from '../modules/ledger/ledger-verify.service.js';
import { exportBalanceTransactions } from '../modules/balance-transactions/balance-transaction.queries.js';
import { balanceTransactionsCsv } from '../modules/balance-transactions/balance-transaction.csv.js';
import { Business } from '../modules/businesses/business.entity.js';
import { approveBusiness, createApiKey, createBusiness, listBusinesses, revokeApiKey, updateBusinessTerms } from '../modules/businesses/business.service.js';
import { addWithdrawalMethod, listWithdrawalMethods, removeWithdrawalMethod } from '../modules/withdrawals/withdrawal-method.service.js';
import { disputeCommand, disputeUsage } from './dispute.commands.js';
import { money, parseOptions, percent, required as requiredWith, UsageError, type CommandDeps, type CommandResult, type Options } from './options.js';
import type { WithdrawalMethod } from '../modules/withdrawals/withdrawal-method.entity.js';
import { destinationSchema, type Destination } from '../modules/withdrawals/destination.rules.js';
import { queryInstant } from '../http/validate.js';

export { UsageError, type CommandResult, type Options } from './options.js';

const businessOptions = z.object({
  name: z.string({ error: '--name is required' }).min(1).max(200),
  // prefault, not default: zod 4's default skips the conversion, so 2.9 would be stored as 2.9 bps.
  'fee-percent': percent('--fee-percent').prefault('2.9'),
  'fixed-fee': money.prefault('0.30'),
  'reserve-percent': percent('--reserve-percent').prefault('0'),
  'reserve-hold': durationMs.prefault('90d'),
  'dispute-fee': money.prefault('15.00'),
  tier: z.enum(RATE_LIMIT_TIERS).default('standard'),
  'rate-per-minute': z.coerce.number().int().positive().optional(),
  burst: z.coerce.number().int().positive().optional(),
  approved: z.boolean().default(false),
});

/** A date (its midnight UTC) or an ISO 8601 instant; `--to` is exclusive, so a month is `--from 2026-11-01 --to 2026-12-01`. */
const instantOption = queryInstant('an ISO 8601 date or instant')
  .transform((value) => new Date(value))
  .optional();
const exportOptions = z.object({ mode: z.enum(['test', 'live']).default('test'), from: instantOption, to: instantOption });

const keyLines = (keys: { id: string; mode: string; scope: string; secret: string }[]) =>
  keys.map((k) => `  ${k.mode.padEnd(4)} ${k.scope.padEnd(9)} ${k.secret}   (${k.id})`).join('\n');

/** The terms `business update` may change; each only if given. */
const termOptions = z.object({
  'fee-percent': percent('--fee-percent').optional(),
  'fixed-fee': money.optional(),
  'reserve-percent': percent('--reserve-percent').optional(),
  'reserve-hold': durationMs.optional(),
  'dispute-fee': money.optional(),
});

const required = (value: string | undefined, what: string) => requiredWith(value, what, USAGE);

const termsLine = (b: Business) =>
  `${(b.feeBps / 100).toFixed(2)}% + $${(b.feeFixedCents / 100).toFixed(2)}  reserve ${(b.reserveBps / 100).toFixed(2)}%  dispute fee $${(b.disputeFeeCents / 100).toFixed(2)}`;

export async function runCommand(em: EntityManager, args: string[], options: Options, deps: CommandDeps = {}): Promise<CommandResult> {
  const [area, action, target] = args;
  if (area === 'dispute') return disputeCommand(em, action, target, options, deps);
  switch (`${area} ${action}`) {
    case 'business create': {
      const o = parseOptions(businessOptions, options);
      if (o.tier === 'enterprise' && (!o['rate-per-minute'] || !o.burst)) {
        throw new UsageError('the enterprise tier needs --rate-per-minute and --burst');
      }
      const { business, keys } = await createBusiness(em, {
        name: o.name,
        approved: o.approved,
        feeBps: o['fee-percent'],
        feeFixedCents: o['fixed-fee'],
        reserveBps: o['reserve-percent'],
        reserveHoldMs: o['reserve-hold'],
        disputeFeeCents: o['dispute-fee'],
        rateLimitTier: o.tier,
        rateLimitPerMinute: o['rate-per-minute'] ?? null,
        rateLimitBurst: o.burst ?? null,
      });
      return {
        text: `Created business ${business.id} (${business.name})${business.approved ? '' : ', not yet approved'}.\nKeys (shown once, store them now):\n${keyLines(keys)}`,
        json: { business, keys },
      };
    }
    case 'business update': {
      const businessId = required(target, 'business id');
      const o = parseOptions(termOptions, options);
      const terms = {
        feeBps: o['fee-percent'],
        feeFixedCents: o['fixed-fee'],
        reserveBps: o['reserve-percent'],
        reserveHoldMs: o['reserve-hold'],
        disputeFeeCents: o['dispute-fee'],
      };
      if (Object.values(terms).every((value) => value === undefined)) {
        throw new UsageError('business update needs at least one of --fee-percent, --fixed-fee, --reserve-percent, --reserve-hold, --dispute-fee');
      }
      const business = await updateBusinessTerms(em, businessId, terms);
      return { text: `Updated ${business.id}: ${termsLine(business)}. They apply to money moves from now on.`, json: { business } };
    }
    case 'business approve': {
      const business = await approveBusiness(em, required(target, 'business id'));
      return { text: `Approved ${business.id}; its live keys now work.`, json: { business } };
    }
    case 'business list': {
      const businesses = await listBusinesses(em);
      const rows = businesses.map(
        (b) => `${b.id}  ${b.approved ? 'approved' : 'pending '}  ${termsLine(b)}  ${b.rateLimitTier}  ${b.name}`,
      );
      return { text: rows.join('\n') || 'No businesses yet.', json: { businesses } };
    }
    case 'key create': {
      const o = parseOptions(
        z.object({ mode: z.enum(['test', 'live']).default('test'), scope: z.enum(['full', 'read_only']).default('full') }),
        options,
      );
      const key = await createApiKey(em, required(target, 'business id'), o.mode, o.scope);
      return { text: `Key (shown once, store it now):\n${keyLines([key])}`, json: { key } };
    }
    case 'key revoke': {
      const key = await revokeApiKey(em, required(target, 'key id'));
      return { text: `Revoked ${key.id} (${key.prefix}…).`, json: { key: { id: key.id, revokedAt: key.revokedAt } } };
    }
    case 'withdrawal-method add': {
      const businessId = required(target, 'business id');
      const destination = parseMethodOptions(options);
      const { method, added } = await addWithdrawalMethod(em, businessId, destination.destinationType, destination.destinationDetails);
      return {
        text: added
          ? `Added ${method.destinationType} withdrawal method ${method.id} to ${businessId}: ${methodLine(method)}`
          : `${businessId} already has this destination as ${method.id}: ${methodLine(method)}. Nothing added.`,
        json: { withdrawalMethod: method, added },
      };
    }
    case 'withdrawal-method list': {
      const methods = await listWithdrawalMethods(em, required(target, 'business id'));
      return { text: methods.map((m) => `${m.id}  ${methodLine(m)}`).join('\n') || 'No withdrawal methods: this business cannot withdraw.', json: { withdrawalMethods: methods } };
    }
    case 'withdrawal-method remove': {
      const method = await removeWithdrawalMethod(em, required(target, 'withdrawal method id'));
      return {
        text: `Removed ${method.id} (${methodLine(method)}) from ${method.businessId}. New withdrawals can no longer name it; those already requested go ahead.`,
        json: { withdrawalMethod: method },
      };
    }
    case 'ledger verify': {
      const report = await verifyLedger(em);
      return {
        text: report.ok
          ? 'Ledger verified: every invariant holds.'
          : `Ledger verification FAILED:\n${report.problems.map((problem) => `  - ${problem}`).join('\n')}`,
        json: report,
        exitCode: report.ok ? 0 : 1,
      };
    }
    case 'balance-transactions export': {
      const businessId = required(target, 'business id');
      const o = parseOptions(exportOptions, options);
      await em.findOneOrFail(Business, { id: businessId });
      const items = await exportBalanceTransactions(em, { businessId, livemode: o.mode === 'live' }, { from: o.from, to: o.to });
      return { text: balanceTransactionsCsv(items), json: { items } };
    }
    default:
      throw new UsageError(USAGE);
  }
}

/** `--type wallet --wallet-email …` or `--type crypto --coin … --network … --address …`, by the withdrawal rules. */
function parseMethodOptions(options: Options): Destination {
  const type = parseOptions(z.object({ type: z.enum(['wallet', 'crypto'], { error: 'wallet or crypto' }) }), options).type;
  const fields: Record<string, string> =
    type === 'wallet' ? { walletEmail: 'wallet-email' } : { cryptoCoin: 'coin', cryptoNetwork: 'network', cryptoAddress: 'address' };
  const details = Object.fromEntries(Object.entries(fields).map(([key, option]) => [key, options[option]]));
  const result = destinationSchema.safeParse({ destinationType: type, destinationDetails: details });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = String(issue.path.at(-1));
  throw new UsageError(`--${fields[field] ?? field}: ${fields[field] && options[fields[field]] === undefined ? 'required' : issue.message}`);
}

function methodLine(method: WithdrawalMethod): string {
  const d = method.details;
  return method.destinationType === 'wallet' ? `wallet ${d.walletEmail}` : `crypto ${d.cryptoCoin} ${d.cryptoNetwork} ${d.cryptoAddress}`;
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
