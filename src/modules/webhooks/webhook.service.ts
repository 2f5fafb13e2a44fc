import type { EntityManager } from '@mikro-orm/postgresql';
import { pageMeta } from '../../domain/cursor.js';
import { newId } from '../../domain/ids.js';
import type { Caller } from '../businesses/index.js';
import { DomainError } from '../../domain/errors.js';
import { nonPublicAddresses, type ResolveAll } from './private-address.rules.js';
import { receiverResolveAll } from './receiver-dns.js';
import { generateWebhookSecret, sealSecret } from './secret-box.crypto.js';
import { WebhookEndpoint } from './webhook.entity.js';
import type { CreateEndpointInput, UpdateEndpointInput } from './webhook.schemas.js';
import { requireTransaction } from '../../db/transaction.js';

export interface EndpointServiceDeps {
  encryptionKey: Buffer;
  allowPrivateUrls: boolean;
  resolveAll?: ResolveAll;
}

/** How long the secret before a rotation keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * Refuses, unless allowed, a URL whose host is or resolves to a non-public address (SSRF). Routes call
 * it before they open their transaction: a DNS lookup, as slow as the URL's nameserver chooses, must
 * never hold one of the pool's connections.
 */
export async function assertReachableUrl(url: string, deps: EndpointServiceDeps): Promise<void> {
  if (deps.allowPrivateUrls) return;
  const refused = await nonPublicAddresses(new URL(url).hostname, deps.resolveAll ?? receiverResolveAll);
  if (refused.length) {
    throw new DomainError('webhook_url_not_public', { field: ['url'] });
  }
}

/** Endpoints a business may have per mode (deleted ones do not count): each event fans out to all of them. */
export const MAX_WEBHOOK_ENDPOINTS = 16;

/**
 * The count and the insert are made under a lock held to the end of the request's transaction, one per
 * business and mode, so concurrent creates cannot both see room for one more.
 */
export async function createEndpoint(em: EntityManager, caller: Caller, input: CreateEndpointInput, deps: EndpointServiceDeps) {
  requireTransaction(em);
  await em.execute('select pg_advisory_xact_lock(hashtext(?), ?)', [`webhook_endpoints:${caller.businessId}`, caller.livemode ? 1 : 0]);
  const existing = await em.count(WebhookEndpoint, { businessId: caller.businessId, livemode: caller.livemode, deletedAt: null });
  if (existing >= MAX_WEBHOOK_ENDPOINTS) throw new DomainError('too_many_webhook_endpoints', { params: { max: MAX_WEBHOOK_ENDPOINTS } });
  const id = newId('wh');
  const secret = generateWebhookSecret();
  const now = new Date();
  const enabled = input.enabled ?? input.isActive ?? true;
  const endpoint = em.create(WebhookEndpoint, {
    id,
    businessId: caller.businessId,
    livemode: caller.livemode,
    url: input.url,
    events: input.events,
    enabled,
    description: input.description ?? null,
    disabledReason: enabled ? null : 'manual',
    disabledAt: enabled ? null : now,
    failingSince: null,
    rateLimitPerSecond: input.rateLimitPerSecond ?? null,
    nextAttemptNotBefore: null,
    secretSealed: sealSecret(deps.encryptionKey, id, secret),
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  });
  await em.flush();
  return { endpoint, secret };
}

/** Another business's or mode's endpoint, a deleted one, or a malformed id, is simply not found. */
export async function findEndpoint(em: EntityManager, caller: Caller, id: string): Promise<WebhookEndpoint> {
  const endpoint = id.startsWith('wh_')
    ? await em.findOne(WebhookEndpoint, { id, businessId: caller.businessId, livemode: caller.livemode, deletedAt: null })
    : null;
  if (!endpoint) throw new DomainError('webhook_endpoint_not_found');
  return endpoint;
}

/**
 * For the test ping and recovery: the endpoint row-locked to the end of the transaction (locked before it
 * is read, so two recoveries of it run one after the other), and enabled, since a disabled endpoint's
 * deliveries would only be stopped at their first attempt: the merchant re-enables it first.
 */
export async function lockEnabledEndpoint(tx: EntityManager, caller: Caller, id: string): Promise<WebhookEndpoint> {
  requireTransaction(tx);
  // NO KEY UPDATE: two of these still queue, but a delivery row inserted meanwhile (its foreign key takes
  // KEY SHARE on this row) does not wait, so a manual retry holding an event's lock cannot deadlock with it.
  await tx.execute('select id from webhook_endpoints where id = ? and business_id = ? for no key update', [id, caller.businessId]);
  const endpoint = await findEndpoint(tx, caller, id);
  if (!endpoint.enabled) throw new DomainError('webhook_endpoint_disabled');
  return endpoint;
}

export async function listEndpoints(em: EntityManager, caller: Caller, query: { limit: number; page: number }) {
  const where = { businessId: caller.businessId, livemode: caller.livemode, deletedAt: null };
  const [items, total] = await em.findAndCount(WebhookEndpoint, where, {
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    limit: query.limit,
    offset: (query.page - 1) * query.limit,
  });
  // At most 16 endpoints a business and mode: counting them is as cheap as a counter.
  return { items, meta: pageMeta({ total, capped: false }, query.page, query.limit, query.page * query.limit < total) };
}

/** The secret is never touched here. Disabling stops the endpoint's pending retries. */
export async function updateEndpoint(
  tx: EntityManager,
  caller: Caller,
  id: string,
  input: UpdateEndpointInput,
): Promise<WebhookEndpoint> {
  requireTransaction(tx);
  const endpoint = await findEndpoint(tx, caller, id);
  if (input.url !== undefined) endpoint.url = input.url;
  if (input.events !== undefined) endpoint.events = input.events;
  if (input.description !== undefined) endpoint.description = input.description;
  if (input.rateLimitPerSecond !== undefined) endpoint.rateLimitPerSecond = input.rateLimitPerSecond;
  const enabled = input.isActive ?? input.enabled;
  const now = new Date();
  if (enabled !== undefined && enabled !== endpoint.enabled) Object.assign(endpoint, switchedTo(enabled, now));
  endpoint.updatedAt = now;
  await tx.flush();
  if (!endpoint.enabled) await stopPendingDeliveries(tx, endpoint.id, 'Endpoint disabled');
  return endpoint;
}

/**
 * The merchant's switch. Off: `manual`, from now. On again: the reason is cleared, and the failure streak
 * starts afresh, so an endpoint disabled for failing gets a full window after it is re-enabled.
 */
function switchedTo(enabled: boolean, now: Date): Partial<WebhookEndpoint> {
  return enabled
    ? { enabled, disabledReason: null, disabledAt: null, failingSince: null }
    : { enabled, disabledReason: 'manual', disabledAt: now };
}

export async function deleteEndpoint(tx: EntityManager, caller: Caller, id: string): Promise<{ id: string; deleted: true }> {
  requireTransaction(tx);
  const endpoint = await findEndpoint(tx, caller, id);
  endpoint.deletedAt = new Date();
  endpoint.enabled = false;
  endpoint.updatedAt = endpoint.deletedAt;
  await tx.flush();
  await stopPendingDeliveries(tx, endpoint.id, 'Endpoint deleted');
  return { id: endpoint.id, deleted: true as const };
}

/**
 * Deliveries waiting for their next attempt end as `failed` now. The delivery workflow's next attempt
 * finds them so (and finds the endpoint off) and sends nothing; one mid-attempt finishes that attempt only.
 */
async function stopPendingDeliveries(em: EntityManager, endpointId: string, reason: string): Promise<void> {
  await em.execute(
    `update webhook_deliveries set status = 'failed', last_error = ?, next_attempt_at = null,
       completed_at = now(), updated_at = now()
     where endpoint_id = ? and status = 'pending'`,
    [reason, endpointId],
    'run',
  );
}

/** A new secret; the old one keeps signing beside it for 24 hours so receivers can switch without loss. */
export async function rotateSecret(em: EntityManager, caller: Caller, id: string, deps: EndpointServiceDeps) {
  const endpoint = await findEndpoint(em, caller, id);
  const secret = generateWebhookSecret();
  const now = new Date();
  endpoint.previousSecretSealed = endpoint.secretSealed;
  endpoint.previousSecretExpiresAt = new Date(now.getTime() + ROTATION_OVERLAP_MS);
  endpoint.secretSealed = sealSecret(deps.encryptionKey, endpoint.id, secret);
  endpoint.updatedAt = now;
  await em.flush();
  return { endpoint, secret };
}
