import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { durationMs } from '../config.js';
import {
  Business,
  RATE_LIMIT_TIERS,
  approveBusiness,
  createApiKey,
  createBusiness,
  listBusinesses,
  revokeApiKey,
  updateBusinessTerms,
} from '../modules/businesses/index.js';
import { money, parseOptions, percent, UsageError, type Command, type CommandCall, type CommandResult } from './options.js';

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

/** The terms `business update` may change; each only if given. */
const termOptions = z.object({
  'fee-percent': percent('--fee-percent').optional(),
  'fixed-fee': money.optional(),
  'reserve-percent': percent('--reserve-percent').optional(),
  'reserve-hold': durationMs.optional(),
  'dispute-fee': money.optional(),
});

const keyOptions = z.object({ mode: z.enum(['test', 'live']).default('test'), scope: z.enum(['full', 'read_only']).default('full') });

const keyLines = (keys: { id: string; mode: string; scope: string; secret: string }[]) =>
  keys.map((k) => `  ${k.mode.padEnd(4)} ${k.scope.padEnd(9)} ${k.secret}   (${k.id})`).join('\n');

const termsLine = (b: Business) =>
  `${(b.feeBps / 100).toFixed(2)}% + $${(b.feeFixedCents / 100).toFixed(2)}  reserve ${(b.reserveBps / 100).toFixed(2)}%  dispute fee $${(b.disputeFeeCents / 100).toFixed(2)}`;

async function businessCreate(em: EntityManager, { options }: CommandCall): Promise<CommandResult> {
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

async function businessUpdate(em: EntityManager, { options, required }: CommandCall): Promise<CommandResult> {
  const businessId = required('business id');
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

async function businessApprove(em: EntityManager, { required }: CommandCall): Promise<CommandResult> {
  const business = await approveBusiness(em, required('business id'));
  return { text: `Approved ${business.id}; its live keys now work.`, json: { business } };
}

async function businessList(em: EntityManager): Promise<CommandResult> {
  const businesses = await listBusinesses(em);
  const rows = businesses.map((b) => `${b.id}  ${b.approved ? 'approved' : 'pending '}  ${termsLine(b)}  ${b.rateLimitTier}  ${b.name}`);
  return { text: rows.join('\n') || 'No businesses yet.', json: { businesses } };
}

async function keyCreate(em: EntityManager, { options, required }: CommandCall): Promise<CommandResult> {
  const o = parseOptions(keyOptions, options);
  const key = await createApiKey(em, required('business id'), o.mode, o.scope);
  return { text: `Key (shown once, store it now):\n${keyLines([key])}`, json: { key } };
}

async function keyRevoke(em: EntityManager, { required }: CommandCall): Promise<CommandResult> {
  const key = await revokeApiKey(em, required('key id'));
  return { text: `Revoked ${key.id} (${key.prefix}…).`, json: { key: { id: key.id, revokedAt: key.revokedAt } } };
}

/** `business …` and `key …`: a business, its terms and approval, and its API keys. */
export const businessCommands: Record<string, Command> = {
  'business create': businessCreate,
  'business update': businessUpdate,
  'business approve': businessApprove,
  'business list': businessList,
  'key create': keyCreate,
  'key revoke': keyRevoke,
};
