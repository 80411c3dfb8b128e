import { bumpEdgeEpoch, forbidden, isUuid, notFound, type BaseContext, type Database, type FixedWindowRateLimiter, type Identity, type Logger, type Redis } from '@voxgate/kit';

/** Who a user id is: tenant and rank (tenancy's UserDirectory). */
export interface UserLookup {
  find(userId: string): Promise<{ id: string; tenantId: string; hierarchyOrder: number } | null>;
}

export interface BillingDeps {
  users: UserLookup;
  limiter: FixedWindowRateLimiter | null;
  db: Database;
  txDb: Database;
  redis: Redis;
  log: Logger;
}

/** What the services need: the log is for the resolvers' callers, not the services. */
export type BillingStores = Pick<BillingDeps, 'db' | 'txDb' | 'redis'>;

export interface BillingContext extends BaseContext {
  deps: BillingDeps;
}

export function createBillingContext(deps: BillingDeps, identity: Identity): BillingContext {
  return { identity, deps, limiter: deps.limiter };
}

export function isSystemCaller(identity: Identity): boolean {
  return identity.tenantName === 'system' && identity.kind === 'user';
}

/**
 * The user an administrator acts on: it must exist and belong to the caller's tenant (or the
 * caller is a system administrator); changing another user also needs a higher rank, so equals
 * cannot throttle each other. Reads skip the rank rule.
 */
export async function targetUser(deps: Pick<BillingDeps, 'users'>, identity: Identity, userId: string, forChange: boolean): Promise<{ id: string; tenantId: string }> {
  const u = isUuid(userId) ? await deps.users.find(userId.toLowerCase()) : null;
  if (!u || !(isSystemCaller(identity) || u.tenantId === identity.tenantId)) throw notFound('User');
  if (forChange && u.id !== identity.userId && u.hierarchyOrder >= identity.hierarchyOrder) {
    throw forbidden('Only users ranked below you can be changed');
  }
  return { id: u.id, tenantId: u.tenantId };
}

/** Billing data is per tenant; every caller acts inside their own tenant. */
export function tenantOf(identity: Identity): string {
  if (!identity.tenantId) throw new Error('identity without tenant');
  return identity.tenantId;
}

/** Changes to limits move the edge epoch so edges drop their cached effective limits. */
export async function bumpLimitsEpoch(redis: Redis): Promise<void> {
  await bumpEdgeEpoch(redis);
}
