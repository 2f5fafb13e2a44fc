import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Business } from './business.entity.js';

export type ApiKeyMode = 'live' | 'test';
export type ApiKeyScope = 'full' | 'read_only';

/** Only the SHA-256 of a key and a short visible prefix are stored; the secret is shown once. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    businessId: () => p.manyToOne(Business).mapToPk().fieldName('business_id'),
    mode: p.string().$type<ApiKeyMode>(),
    scope: p.string().$type<ApiKeyScope>(),
    prefix: p.string(),
    secretHash: p.string().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
