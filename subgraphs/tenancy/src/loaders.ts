import DataLoader from 'dataloader';
import { asc, inArray } from 'drizzle-orm';
import type { Database } from '@voxgate/kit';
import { apiKeys, oidcProviders, roles, tenants, users, type ApiKeyRow, type OidcProviderRow, type RoleRow, type TenantRow, type UserRow } from './db/schema';

function byKey<K, V>(keys: readonly K[], rows: V[], key: (row: V) => K): (V | null)[] {
  const map = new Map(rows.map((r) => [key(r), r]));
  return keys.map((k) => map.get(k) ?? null);
}

function groupBy<K, V>(keys: readonly K[], rows: V[], key: (row: V) => K): V[][] {
  const map = new Map<K, V[]>(keys.map((k) => [k, []]));
  for (const r of rows) map.get(key(r))?.push(r);
  return keys.map((k) => map.get(k) ?? []);
}

/** Per-request batching so nested admin reads cost one query per level, not per row. */
export function createLoaders(db: Database) {
  return {
    role: new DataLoader<string, RoleRow | null>(async (ids) =>
      byKey(ids, await db.select().from(roles).where(inArray(roles.id, [...ids])), (r) => r.id)),
    tenant: new DataLoader<string, TenantRow | null>(async (ids) =>
      byKey(ids, await db.select().from(tenants).where(inArray(tenants.id, [...ids])), (r) => r.id)),
    oidcProviderByTenant: new DataLoader<string, OidcProviderRow | null>(async (ids) =>
      byKey(ids, await db.select().from(oidcProviders).where(inArray(oidcProviders.tenantId, [...ids])), (r) => r.tenantId)),
    user: new DataLoader<string, UserRow | null>(async (ids) =>
      byKey(ids, await db.select().from(users).where(inArray(users.id, [...ids])), (r) => r.id)),
    usersByTenant: new DataLoader<string, UserRow[]>(async (ids) =>
      groupBy(ids, await db.select().from(users).where(inArray(users.tenantId, [...ids])).orderBy(asc(users.createdAt), asc(users.id)), (r) => r.tenantId)),
    apiKeysByUser: new DataLoader<string, ApiKeyRow[]>(async (ids) =>
      groupBy(ids, await db.select().from(apiKeys).where(inArray(apiKeys.userId, [...ids])).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id)), (r) => r.userId)),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;
