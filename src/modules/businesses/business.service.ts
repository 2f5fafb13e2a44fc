import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../domain/ids.js';
import { ApiKey, type ApiKeyMode, type ApiKeyScope } from './api-key.entity.js';
import { generateApiKey } from './api-key.crypto.js';
import { Business, type RateLimitTier } from './business.entity.js';

export interface NewBusiness {
  name: string;
  approved?: boolean;
  feeBps: number;
  feeFixedCents: number;
  reserveBps: number;
  reserveHoldMs: number;
  /** What a chargeback costs on top of its amount; 1500 cents unless given. */
  disputeFeeCents?: number;
  rateLimitTier: RateLimitTier;
  rateLimitPerMinute?: number | null;
  rateLimitBurst?: number | null;
}

/** The demo business's terms: 2.9 % + $0.30, 10 % held for 90 days. */
export const DEMO_BUSINESS: NewBusiness = {
  name: 'Demo business',
  approved: true,
  feeBps: 290,
  feeFixedCents: 30,
  reserveBps: 1000,
  reserveHoldMs: 90 * 24 * 3600 * 1000,
  rateLimitTier: 'standard',
};

export interface IssuedKey {
  id: string;
  mode: ApiKeyMode;
  scope: ApiKeyScope;
  prefix: string;
  /** Shown once; only its hash is stored. */
  secret: string;
}

function issueKey(em: EntityManager, businessId: string, mode: ApiKeyMode, scope: ApiKeyScope): IssuedKey {
  const { secret, hash, prefix } = generateApiKey(mode);
  const key = em.create(ApiKey, { id: newId('key'), businessId, mode, scope, prefix, secretHash: hash });
  return { id: key.id, mode, scope, prefix, secret };
}

/** A business with one full-scope test key and one live key. */
export async function createBusiness(em: EntityManager, input: NewBusiness): Promise<{ business: Business; keys: IssuedKey[] }> {
  const business = em.create(Business, {
    id: newId('biz'),
    approved: false,
    rateLimitPerMinute: null,
    rateLimitBurst: null,
    ...input,
  });
  const keys = [issueKey(em, business.id, 'test', 'full'), issueKey(em, business.id, 'live', 'full')];
  await em.flush();
  return { business, keys };
}

/** The terms an operator may change after creation; each applies to money moves from then on. */
export type BusinessTerms = Partial<Pick<Business, 'feeBps' | 'feeFixedCents' | 'reserveBps' | 'reserveHoldMs' | 'disputeFeeCents'>>;

export async function updateBusinessTerms(em: EntityManager, businessId: string, terms: BusinessTerms): Promise<Business> {
  const business = await em.findOneOrFail(Business, { id: businessId });
  Object.assign(business, Object.fromEntries(Object.entries(terms).filter(([, value]) => value !== undefined)));
  await em.flush();
  return business;
}

export async function approveBusiness(em: EntityManager, businessId: string): Promise<Business> {
  const business = await em.findOneOrFail(Business, { id: businessId });
  business.approved = true;
  await em.flush();
  return business;
}

export async function createApiKey(em: EntityManager, businessId: string, mode: ApiKeyMode, scope: ApiKeyScope): Promise<IssuedKey> {
  await em.findOneOrFail(Business, { id: businessId });
  const key = issueKey(em, businessId, mode, scope);
  await em.flush();
  return key;
}

export async function revokeApiKey(em: EntityManager, keyId: string): Promise<ApiKey> {
  const key = await em.findOneOrFail(ApiKey, { id: keyId });
  key.revokedAt ??= new Date();
  await em.flush();
  return key;
}

export async function listBusinesses(em: EntityManager): Promise<Business[]> {
  return em.find(Business, {}, { orderBy: { createdAt: 'asc' } });
}
