import { bumpEdgeEpoch, type BaseContext, type Database, type FixedWindowRateLimiter, type Identity, type Logger, type Redis } from '@voxgate/kit';

export interface BillingDeps {
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

/** Billing data is per tenant; every caller acts inside their own tenant. */
export function tenantOf(identity: Identity): string {
  if (!identity.tenantId) throw new Error('identity without tenant');
  return identity.tenantId;
}

/** Changes to limits move the edge epoch so edges drop their cached effective limits. */
export async function bumpLimitsEpoch(redis: Redis): Promise<void> {
  await bumpEdgeEpoch(redis);
}
